// End to end: //tools:bench on the fixture binary (tools/bench/testdata/fake_bench): --list with
// Google Benchmark filter semantics (a leading '-' negates), rounds merged into one JSON file
// with the machine's description and the calibration cases, and bad input rejected (exit 2).
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "harness/subprocess.h"
#include "tools/bench/bench_context.h"
#include "tools/gate/gate_io.h"

namespace {

using nlohmann::json;

const char kFake[] = "--binaries=tools/bench/testdata/fake_bench";

// Runs the project binary at `path` in this test's runfiles (e.g. "tools/bench/bench") with `args`.
harness::ProcessResult RunTool(const std::string& path, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {absl::StrCat(std::getenv("TEST_SRCDIR"), "/mlbench/", path)};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<harness::ProcessResult> r = harness::RunProcess(argv, /*capture_stderr=*/true);
  EXPECT_TRUE(r.ok()) << r.status();
  return *r;
}

harness::ProcessResult Bench(const std::vector<std::string>& args) {
  return RunTool("tools/bench/bench", args);
}

std::set<std::string> Lines(const std::string& s) {
  std::set<std::string> out;
  for (absl::string_view l : absl::StrSplit(s, '\n', absl::SkipEmpty())) out.emplace(l);
  return out;
}

TEST(BenchTest, ListUsesGoogleBenchmarkFilterSemantics) {
  harness::ProcessResult r = Bench({kFake, "--list"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(Lines(r.stdout_text), (std::set<std::string>{"BM_Fake/cpu/axpy/N:262144", "BM_Fake/cpu/tokens",
                                                         "BM_Fake/cpu/unverified", "BM_Fake/cuda/skipped"}));
  r = Bench({kFake, "--list", "--filter=-axpy"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(Lines(r.stdout_text),
            (std::set<std::string>{"BM_Fake/cpu/tokens", "BM_Fake/cpu/unverified", "BM_Fake/cuda/skipped"}));
  r = Bench({kFake, "--list", "--filter=/cuda/"});
  EXPECT_EQ(Lines(r.stdout_text), (std::set<std::string>{"BM_Fake/cuda/skipped"}));
  // A binary with no case for the filter is no error while another has some (our binaries
  // exit 2 on an empty selection; bench lists it as 0 cases).
  r = Bench({"--binaries=tools/bench/testdata/fake_bench,tools/bench/bench_calibration", "--list",
             "--filter=BM_Calibration/cpu/fma"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  ASSERT_EQ(Lines(r.stdout_text).size(), 1u) << r.stdout_text;
  EXPECT_EQ(Lines(r.stdout_text).begin()->rfind("BM_Calibration/cpu/fma", 0), 0u) << r.stdout_text;
}

TEST(BenchTest, RoundsAreMergedWithMachineContext) {
  const std::string out = absl::StrCat(std::getenv("TEST_TMPDIR"), "/run.json");
  // --retries=0: a test on a busy machine must not wait for it to calm down.
  harness::ProcessResult r = Bench({kFake, "--filter=axpy|cuda", "--repetitions=2", "--min_time=0.01",
                                    "--retries=0", "--threads=1", "--out=" + out});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  absl::StatusOr<json> j = gate::ReadJsonFile(out);
  ASSERT_TRUE(j.ok()) << j.status();
  const json& m = (*j)["context"]["mlbench"];
  // The run context: what tools/gate keys baselines on (gate_key.h).
  const json& rc = m["run_context"];
  EXPECT_TRUE(rc["cpu"]["model_name"].is_string());
  EXPECT_GE(rc["cpu"]["family"].get<int>(), 0);
  EXPECT_GT(rc["cpu"]["logical_cpus"].get<int>(), 0);
  EXPECT_TRUE(rc["gpu"]["name"].is_string());
  EXPECT_EQ(rc["gemm"][0]["name"], "oneDNN");
  EXPECT_EQ(rc["gemm"][1]["name"], "OpenBLAS");
  EXPECT_EQ(m["commit"], rc["build"]["commit"]);
  EXPECT_EQ(m["suite"], "custom");
  EXPECT_EQ(m["filter"], "axpy|cuda");
  EXPECT_EQ(m["repetitions"], 2);
  // The mode //tools:bench was built in, like this test: opt, or dbg under --config=asan/ubsan.
  EXPECT_EQ(m["build_type"], bench::BuildType());
  EXPECT_TRUE(m["build_type"] == "opt" || m["build_type"] == "dbg" || m["build_type"] == "fastbuild");
  EXPECT_EQ(m["threads"], 1);
  std::map<std::string, std::set<int>> reps;
  for (const json& b : (*j)["benchmarks"]) {
    EXPECT_EQ(b["repetitions"], 2);
    EXPECT_GE(b["mlbench_foreign_cpu"].get<double>(), 0.0);
    EXPECT_LE(b["mlbench_foreign_cpu"].get<double>(), 1.0);
    EXPECT_GE(b["mlbench_attempts"].get<int>(), 1);
    EXPECT_LE(b["mlbench_contention"].get<double>(), b["mlbench_foreign_cpu"].get<double>());
    reps[b["name"].get<std::string>()].insert(b["repetition_index"].get<int>());
  }
  EXPECT_EQ(reps["BM_Fake/cpu/axpy/N:262144"], (std::set<int>{0, 1}));
  EXPECT_EQ(reps["BM_Fake/cuda/skipped"], (std::set<int>{0, 1}));
  EXPECT_EQ(reps.count("BM_Fake/cpu/tokens"), 0u);
  int calibration_cases = 0;
  for (const auto& [name, r] : reps) calibration_cases += name.rfind("BM_Calibration/", 0) == 0;
  EXPECT_EQ(calibration_cases, 2);
  // The calibration cases follow the verification convention (verified == 1, threads averaged).
  for (const json& b : (*j)["benchmarks"]) {
    if (b["name"].get<std::string>().rfind("BM_Calibration/", 0) == 0) {
      EXPECT_EQ(b["verified"], 1.0) << b["name"];
      EXPECT_NE(b["name"].get<std::string>().find("/threads:1"), std::string::npos) << b["name"];
    }
  }
}

TEST(BenchTest, BadInputExitsTwo) {
  harness::ProcessResult r = Bench({kFake, "--list", "--filter=("});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.stderr_text.find("not a valid regex"), std::string::npos) << r.stderr_text;
  r = Bench({kFake, "--filter=nothing_matches_this", "--out=/dev/null"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.stderr_text.find("selects no case"), std::string::npos) << r.stderr_text;
  r = Bench({"--binaries=tools/no_such_binary", "--list"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.stderr_text.find("tools/no_such_binary"), std::string::npos);
  r = Bench({kFake, "--repetitions=0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.stderr_text.find("--repetitions=0"), std::string::npos);
}

// Never green on a broken measurement: a case that failed its check in any round fails the
// run (exit 2), names the case, and no JSON is written.
TEST(BenchTest, FailedCheckFailsTheRunAndWritesNothing) {
  const std::string out = absl::StrCat(std::getenv("TEST_TMPDIR"), "/broken.json");
  harness::ProcessResult r = Bench({kFake, "--filter=axpy|unverified", "--repetitions=1", "--min_time=0.01",
                                    "--retries=0", "--out=" + out});
  EXPECT_EQ(r.exit_code, 2) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("BM_Fake/cpu/unverified"), std::string::npos) << r.stderr_text;
  EXPECT_FALSE(gate::ReadJsonFile(out).ok());
  // An output that cannot be written fails before anything runs.
  r = Bench({kFake, "--filter=axpy", "--out=/nonexistent_dir/x.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.stderr_text.find("'/nonexistent_dir' does not exist"), std::string::npos) << r.stderr_text;
}

harness::ProcessResult GateRun(const std::vector<std::string>& args) {
  return RunTool("tools/gate/gate", args);
}

// Same-machine A/B through the whole pipeline: bench runs the base binaries (here prebuilt:
// the same fixture from this test's runfiles) and the current ones in alternating rounds and
// writes both sides; the gate compares them paired. Identical code passes; a slowdown
// injected into the current side only fails. (The statistics' power is measured by
// tools/gate/gate_detection_experiment.sh; here the slowdown is 2x so that a test on a busy machine
// cannot miss it, and the identical-code threshold 20%.)
TEST(BenchTest, AbRunOfIdenticalCodePassesAndASlowdownFails) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  const std::string runfiles = absl::StrCat(std::getenv("TEST_SRCDIR"));
  const std::vector<std::string> ab = {kFake,
                                       "--filter=axpy",
                                       "--repetitions=9",
                                       "--min_time=0.01",
                                       "--retries=0",
                                       "--threads=1",
                                       "--against_runfiles=" + runfiles};
  unsetenv("MLBENCH_FAKE_SLOWDOWN");
  std::vector<std::string> args = ab;
  args.push_back("--out=" + dir + "/ab_same.json");
  harness::ProcessResult r = Bench(args);
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  absl::StatusOr<json> base = gate::ReadJsonFile(dir + "/ab_same.base.json");
  ASSERT_TRUE(base.ok()) << base.status();
  for (const json& b : (*base)["benchmarks"]) EXPECT_EQ(b["mlbench_side"], "base");
  EXPECT_EQ((*base)["context"]["mlbench"]["ab"]["base_file"], dir + "/ab_same.base.json");
  r = GateRun(
      {"--current=" + dir + "/ab_same.json", "--against=" + dir + "/ab_same.base.json", "--threshold=0.2"});
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;

  setenv("MLBENCH_FAKE_SLOWDOWN", "2.0", 1);
  setenv("MLBENCH_FAKE_SLOWDOWN_SIDE", "current", 1);
  args = ab;
  args.push_back("--out=" + dir + "/ab_slow.json");
  r = Bench(args);
  unsetenv("MLBENCH_FAKE_SLOWDOWN");
  unsetenv("MLBENCH_FAKE_SLOWDOWN_SIDE");
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  r = GateRun({"--current=" + dir + "/ab_slow.json", "--against=" + dir + "/ab_slow.base.json"});
  EXPECT_EQ(r.exit_code, 3) << r.stdout_text << r.stderr_text;
  EXPECT_NE(r.stdout_text.find("REGRESSED   BM_Fake/cpu/axpy/N:262144"), std::string::npos) << r.stdout_text;
}

// --against keeps its worktrees under $XDG_CACHE_HOME or $HOME, never a predictable folder in
// /tmp: with neither set bench refuses (exit 2, the reason); a planted cache folder (mode 0777,
// or another user's) is refused before anything is checked out or built in it.
TEST(BenchTest, AbCacheWithoutHomeOrPlantedIsRefused) {
  const std::string dir = std::getenv("TEST_TMPDIR");
  const char* home = std::getenv("HOME");
  const std::string saved_home = home == nullptr ? "" : home;
  unsetenv("HOME");
  unsetenv("XDG_CACHE_HOME");
  harness::ProcessResult r =
      Bench({kFake, "--filter=axpy", "--against=HEAD", "--out=" + dir + "/nohome.json"});
  if (!saved_home.empty()) setenv("HOME", saved_home.c_str(), 1);
  EXPECT_EQ(r.exit_code, 2) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("no cache folder: XDG_CACHE_HOME is not set and HOME is not set"),
            std::string::npos)
      << r.stderr_text;

  const std::string open = dir + "/open_cache";
  ASSERT_EQ(mkdir(open.c_str(), 0700), 0);
  ASSERT_EQ(chmod(open.c_str(), 0777), 0);
  r = Bench(
      {kFake, "--filter=axpy", "--against=HEAD", "--against_cache=" + open, "--out=" + dir + "/open.json"});
  EXPECT_EQ(r.exit_code, 2) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("cache folder '" + open + "' is writable by its group or by others"),
            std::string::npos)
      << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("mode 0777"), std::string::npos) << r.stderr_text;

  const std::string theirs = dir + "/their_cache";
  ASSERT_EQ(mkdir(theirs.c_str(), 0700), 0);
  if (chown(theirs.c_str(), 65534, 65534) != 0) GTEST_SKIP() << "chown needs root";
  r = Bench({kFake, "--filter=axpy", "--against=HEAD", "--against_cache=" + theirs,
             "--out=" + dir + "/theirs.json"});
  EXPECT_EQ(r.exit_code, 2) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("cache folder '" + theirs + "' is not ours (owner uid 65534"),
            std::string::npos)
      << r.stderr_text;
}

// Files in `dir` whose name starts with `prefix`.
std::vector<std::string> FilesStartingWith(const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (std::string(e->d_name).rfind(prefix, 0) == 0) out.emplace_back(e->d_name);
    }
    closedir(d);
  }
  return out;
}

// bench stopped by SIGINT or SIGTERM while a benchmark runs: it dies of the signal, and neither
// its temporary report (mlbench_bench_XXXXXX) nor a half --out file is left behind.
TEST(BenchTest, ASignalLeavesNoTemporaryReport) {
  for (int sig : {SIGINT, SIGTERM}) {
    const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/signal", sig);
    mkdir(dir.c_str(), 0755);
    const std::string exe = absl::StrCat(std::getenv("TEST_SRCDIR"), "/mlbench/tools/bench/bench");
    const std::string out = dir + "/run.json";
    const pid_t pid = fork();
    if (pid == 0) {
      setenv("TEST_TMPDIR", dir.c_str(), 1);  // where bench makes its temporary reports
      signal(SIGINT, SIG_DFL);
      const std::string o = "--out=" + out;
      execl(exe.c_str(), exe.c_str(), kFake, "--filter=axpy", "--repetitions=50", "--min_time=1",
            "--retries=0", "--threads=1", o.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    ASSERT_GT(pid, 0);
    bool running = false;                        // a child benchmark writing its report
    for (int i = 0; i < 600 && !running; ++i) {  // up to 60 s
      running = !FilesStartingWith(dir, "mlbench_bench_").empty();
      if (!running) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    kill(pid, sig);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(running) << "bench never started a benchmark";
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "status " << status;
    // bench stopped its child benchmark before it removed the report (harness/atomic_file.h):
    // nothing can write it again.
    std::vector<std::string> left = FilesStartingWith(dir, "");
    left.erase(
        std::remove_if(left.begin(), left.end(), [](const std::string& n) { return n == "." || n == ".."; }),
        left.end());
    EXPECT_TRUE(left.empty()) << "signal " << sig << " left " << absl::StrJoin(left, ", ");
  }
}

}  // namespace
