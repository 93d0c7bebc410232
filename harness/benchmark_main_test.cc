// RunSelectedBenchmarks turns what the cases did into the exit code: a failed check, an error
// or an empty selection is never a success; a skip is.
#include "harness/benchmark_main.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "gtest/gtest.h"
#include "harness/exit_codes.h"
#include "harness/skip.h"

namespace harness {
namespace {

void BM_Good(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(state.iterations());
  state.counters["verified"] = 1;
}
void BM_Wrong(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(state.iterations());
  state.counters["verified"] = 0;
}
void BM_Error(benchmark::State& state) {
  state.SkipWithError("incorrect fp32 matmul: max error 1.2e4");
  for (auto _ : state) {
  }
}
void BM_NotHere(benchmark::State& state) {
  state.SkipWithError(SkipMessage("no CUDA device: test").c_str());
  for (auto _ : state) {
  }
}
BENCHMARK(BM_Good)->Iterations(3);
BENCHMARK(BM_Wrong)->Iterations(3);
BENCHMARK(BM_Error)->Iterations(3);
BENCHMARK(BM_NotHere)->Iterations(3);

int RunWith(const std::string& filter, RunOutcome* o) {
  benchmark::SetBenchmarkFilter(filter);
  return RunSelectedBenchmarks("test", o);
}

TEST(RunSelectedBenchmarks, GoodCasePasses) {
  RunOutcome o;
  EXPECT_EQ(RunWith("^BM_Good/", &o), kExitOk);
  EXPECT_EQ(o.selected, 1u);
  EXPECT_TRUE(o.failed.empty());
}

TEST(RunSelectedBenchmarks, FailedCheckFails) {
  RunOutcome o;
  EXPECT_EQ(RunWith("^BM_(Good|Wrong)/", &o), kExitFailure);
  ASSERT_EQ(o.failed.size(), 1u);
  EXPECT_NE(o.failed[0].find("BM_Wrong/iterations:3: output check failed (verified = 0)"), std::string::npos)
      << o.failed[0];
}

TEST(RunSelectedBenchmarks, ErrorFails) {
  RunOutcome o;
  EXPECT_EQ(RunWith("^BM_Error/", &o), kExitFailure);
  ASSERT_EQ(o.failed.size(), 1u);
  EXPECT_NE(o.failed[0].find("incorrect fp32 matmul"), std::string::npos);
}

TEST(RunSelectedBenchmarks, SkipIsNotAFailure) {
  RunOutcome o;
  EXPECT_EQ(RunWith("^BM_(Good|NotHere)/", &o), kExitOk);
  ASSERT_EQ(o.skipped.size(), 1u);
  EXPECT_EQ(o.skipped[0], "BM_NotHere/iterations:3: no CUDA device: test");
}

TEST(RunSelectedBenchmarks, EmptyOrInvalidFilterFails) {
  RunOutcome o;
  EXPECT_EQ(RunWith("matches_nothing", &o), kExitFailure);
  EXPECT_EQ(o.selected, 0u);
  EXPECT_EQ(RunWith("BM_(", &o), kExitFailure);
  EXPECT_EQ(o.selected, 0u);
}

// Cases a binary left out (CUDA cases without a device): a filter that asked only for them
// fails, and the message says why they are not there.
TEST(RunSelectedBenchmarks, EmptySelectionRepeatsTheLeftOutNote) {
  SetLeftOutNote("4 CUDA case(s) not registered: no CUDA device: test");
  RunOutcome o;
  testing::internal::CaptureStderr();
  const int rc = RunWith("cuda", &o);
  const std::string err = testing::internal::GetCapturedStderr();
  SetLeftOutNote("");
  EXPECT_EQ(rc, kExitFailure);
  EXPECT_NE(err.find("selects no case"), std::string::npos) << err;
  EXPECT_NE(err.find("; 4 CUDA case(s) not registered: no CUDA device: test"), std::string::npos) << err;
}

TEST(ReadStdoutUse, ListingOrAMachineFormatSendsProgressToStderr) {
  auto use = [](std::vector<std::string> args) {
    args.insert(args.begin(), "bin");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    return ReadStdoutUse(static_cast<int>(argv.size()), argv.data());
  };
  EXPECT_FALSE(use({}).ProgressToStderr());
  EXPECT_FALSE(use({"--benchmark_format=console", "--benchmark_list_tests=false"}).ProgressToStderr());
  EXPECT_TRUE(use({"--benchmark_format=json"}).machine_readable);
  EXPECT_FALSE(use({"--benchmark_format=json"}).listing);
  EXPECT_TRUE(use({"--benchmark_list_tests"}).listing);
  EXPECT_TRUE(use({"--benchmark_list_tests=true"}).ProgressToStderr());
}

// --benchmark_out taken over: the flags leave argv, the report is written at the end through
// harness/atomic_file.h (amended first when asked), a bad format is refused, a full device is
// exit 2 and a listing writes nothing.
struct Args {
  explicit Args(std::vector<std::string> a) : strings(std::move(a)) {
    strings.insert(strings.begin(), "bin");
    for (std::string& s : strings) ptrs.push_back(s.data());
    ptrs.push_back(nullptr);
    argc = static_cast<int>(strings.size());
  }
  std::vector<std::string> strings;
  std::vector<char*> ptrs;
  int argc;
};

std::string ReadAll(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string TmpDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

TEST(BenchmarkOut, TakenFromArgvAndWrittenAtTheEnd) {
  const std::string out = TmpDir() + "/report.json";
  Args a({"--benchmark_out=" + out, "--benchmark_filter=x", "--benchmark_out_format=json"});
  absl::StatusOr<std::string> p = ResolveBenchmarkOut("test", &a.argc, a.ptrs.data());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(*p, out);
  ASSERT_EQ(a.argc, 2);
  EXPECT_STREQ(a.ptrs[1], "--benchmark_filter=x");
  EXPECT_EQ(a.ptrs[2], nullptr);
  EXPECT_EQ(BenchmarkOutPath(), out);
  SetBenchmarkOutJsonAmender(
      [](const std::string& json) -> absl::StatusOr<std::string> { return json + "AMENDED"; });
  RunOutcome o;
  EXPECT_EQ(RunWith("^BM_Good/", &o), kExitOk);
  SetBenchmarkOutJsonAmender(nullptr);
  const std::string text = ReadAll(out);
  EXPECT_NE(text.find("\"name\": \"BM_Good/iterations:3\""), std::string::npos) << text;
  EXPECT_NE(text.find("]\n}\nAMENDED"), std::string::npos) << text;  // whole, then amended

  // A listing or an empty selection leaves the file as it was.
  std::FILE* f = std::fopen(out.c_str(), "w");
  std::fputs("previous", f);
  std::fclose(f);
  EXPECT_EQ(RunWith("matches_nothing", &o), kExitFailure);
  EXPECT_EQ(ReadAll(out), "previous");

  // CSV, as Google Benchmark writes it.
  Args c({"--benchmark_out=" + out, "--benchmark_out_format=csv"});
  ASSERT_TRUE(ResolveBenchmarkOut("test", &c.argc, c.ptrs.data()).ok());
  EXPECT_EQ(RunWith("^BM_Good/", &o), kExitOk);
  EXPECT_NE(ReadAll(out).find("name,iterations,real_time"), std::string::npos) << ReadAll(out);

  // Without the flag, nothing is written.
  Args none({});
  ASSERT_TRUE(ResolveBenchmarkOut("test", &none.argc, none.ptrs.data()).ok());
  EXPECT_EQ(BenchmarkOutPath(), "");
}

TEST(BenchmarkOut, ABadFormatOrFolderIsRefused) {
  Args a({"--benchmark_out=" + TmpDir() + "/x.xml", "--benchmark_out_format=xml"});
  absl::StatusOr<std::string> p = ResolveBenchmarkOut("test", &a.argc, a.ptrs.data());
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(), "--benchmark_out_format=xml: allowed: json, console, csv");
  Args d({"--benchmark_out=" + TmpDir()});
  p = ResolveBenchmarkOut("test", &d.argc, d.ptrs.data());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("--benchmark_out: cannot write"), absl::string_view::npos)
      << p.status();
  EXPECT_NE(p.status().message().find("it is a folder"), absl::string_view::npos) << p.status();
}

TEST(BenchmarkOut, AFullDeviceIsExit2) {
  const std::string full = TmpDir() + "/full";
  ::unlink(full.c_str());
  if (::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0 || ::access(full.c_str(), W_OK) != 0) {
    GTEST_SKIP() << "cannot make a device node here (not root)";
  }
  Args a({"--benchmark_out=" + full});
  ASSERT_TRUE(ResolveBenchmarkOut("test", &a.argc, a.ptrs.data()).ok());
  RunOutcome o;
  testing::internal::CaptureStderr();
  const int rc = RunWith("^BM_Good/", &o);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, kExitFailure);
  EXPECT_TRUE(o.write_failed);
  EXPECT_NE(err.find("test: error: --benchmark_out: cannot write '" + full + "': No space left on device"),
            std::string::npos)
      << err;
  struct stat st;
  ASSERT_EQ(::lstat(full.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  Args none({});
  ASSERT_TRUE(ResolveBenchmarkOut("test", &none.argc, none.ptrs.data()).ok());
}

}  // namespace
}  // namespace harness
