// RunSelectedBenchmarks turns what the cases did into the exit code: a failed check, an error
// or an empty selection is never a success; a skip is.
#include "harness/benchmark_main.h"

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

}  // namespace
}  // namespace harness
