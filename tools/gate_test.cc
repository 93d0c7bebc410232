// End to end: the //tools:gate binary's exit codes and messages on synthetic run files
// (bad input 2, no baseline 0 with a message, --update, pass 0, regression 1 with the command
// that updates the baseline, and another machine's baseline left alone).
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/bench_subprocess.h"
#include "tools/gate_io.h"

namespace {

using nlohmann::json;

std::string Tmp() { return std::getenv("TEST_TMPDIR"); }
std::string GateExe() { return absl::StrCat(std::getenv("TEST_SRCDIR"), "/mlbench/tools/gate"); }

// A run as tools/bench writes it: 9 repetitions of two cases and the calibration case.
json RunJson(const std::string& cpu, double a_ns, double b_ns, double cal_ns) {
  json j = {{"context",
             {{"host_name", "test"},
              {"mlbench",
               {{"cpu_model", cpu}, {"logical_cpus", 2}, {"gpu_name", "none"}, {"gpu_count", 0},
                {"cuda_runtime", "13.0"}, {"suite", "quick"}, {"commit", "abc"}, {"build_type", "opt"}}}}},
            {"benchmarks", json::array()}};
  for (int r = 0; r < 9; ++r) {
    double jitter = 1.0 + 0.002 * r;
    for (auto [name, ns] : {std::pair<std::string, double>{"BM_Calibration/cpu/fma/real_time/threads:2", cal_ns},
                            {"BM_A/cpu", a_ns}, {"BM_B/cpu", b_ns}}) {
      j["benchmarks"].push_back({{"name", name}, {"run_type", "iteration"}, {"repetition_index", r},
                                 {"real_time", ns * jitter}, {"cpu_time", ns * jitter}, {"time_unit", "ns"},
                                 {"verified", 1.0}});
    }
  }
  return j;
}

std::string Write(const std::string& name, const std::string& text) {
  std::string p = Tmp() + "/" + name;
  std::ofstream(p) << text;
  return p;
}

bench::ProcessResult Gate(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {GateExe()};
  argv.insert(argv.end(), args.begin(), args.end());
  absl::StatusOr<bench::ProcessResult> r = bench::RunProcess(argv, /*capture_stderr=*/true);
  EXPECT_TRUE(r.ok()) << r.status();
  return *r;
}

bool Has(const bench::ProcessResult& r, const std::string& s) {
  return (r.stdout_text + r.stderr_text).find(s) != std::string::npos;
}

TEST(GateEndToEndTest, Lifecycle) {
  const std::string dir = Tmp() + "/baselines";
  const std::string bdir = "--baseline_dir=" + dir;

  // Malformed input: exit 2, naming the file and where.
  std::string bad = Write("bad.json", "{\"benchmarks\": [1, 2,, 3]}");
  bench::ProcessResult r = Gate({"--current=" + bad, bdir});
  EXPECT_EQ(r.exit_code, 2) << r.stdout_text << r.stderr_text;
  EXPECT_TRUE(Has(r, bad)) << r.stderr_text;
  EXPECT_TRUE(Has(r, "at byte offset 21")) << r.stderr_text;
  r = Gate({"--current=" + Tmp() + "/nope.json", bdir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Has(r, "nope.json"));

  // Another machine's baseline, which must survive everything below.
  std::string other = Write("other.json", RunJson("Other CPU", 100, 100, 10).dump());
  r = Gate({"--current=" + other, bdir, "--update"});
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const std::string other_file = dir + "/Other_CPU_x2__no-GPU__CUDA-none__quick.json";
  std::string other_before = *gate::ReadTextFile(other_file);

  // No baseline for this key: passes, and says so.
  std::string base = Write("base.json", RunJson("Test CPU", 1000, 2000, 10).dump());
  r = Gate({"--current=" + base, bdir});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(Has(r, "no baseline exists for machine key 'Test CPU x2 | no GPU | CUDA none'")) << r.stdout_text;
  EXPECT_TRUE(Has(r, "NEW"));

  // Record it.
  r = Gate({"--current=" + base, bdir, "--update"});
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_TRUE(Has(r, "created"));

  // Unchanged: passes.
  std::string same = Write("same.json", RunJson("Test CPU", 1001, 2002, 10).dump());
  r = Gate({"--current=" + same, bdir});
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text;
  EXPECT_TRUE(Has(r, "passed"));

  // The whole machine 40% slower, calibration included: a regression by default (the ratio
  // is shown), normalised away with --normalize.
  std::string loaded = Write("loaded.json", RunJson("Test CPU", 1400, 2800, 14).dump());
  r = Gate({"--current=" + loaded, bdir});
  EXPECT_EQ(r.exit_code, 1) << r.stdout_text;
  EXPECT_TRUE(Has(r, "1.400x the baseline's time (shown only"));
  r = Gate({"--current=" + loaded, bdir, "--normalize"});
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text;

  // BM_A 25% slower: exit 1, the table, the baseline file and the update command.
  std::string slow = Write("slow.json", RunJson("Test CPU", 1250, 2000, 10).dump());
  const std::string summary = Tmp() + "/summary.md";
  r = Gate({"--current=" + slow, bdir, "--summary=" + summary});
  EXPECT_EQ(r.exit_code, 1) << r.stdout_text;
  EXPECT_TRUE(Has(r, "REGRESSED   BM_A/cpu")) << r.stdout_text;
  EXPECT_TRUE(Has(r, "+25.0%"));
  EXPECT_TRUE(Has(r, "Test_CPU_x2__no-GPU__CUDA-none__quick.json"));
  EXPECT_TRUE(Has(r, "bazel run //tools:gate -- --current=" + slow + " --baseline_dir=" + dir + " --update"))
      << r.stdout_text;
  absl::StatusOr<std::string> md = gate::ReadTextFile(summary);
  ASSERT_TRUE(md.ok());
  EXPECT_NE(md->find("| **REGRESSED** | `BM_A/cpu` |"), std::string::npos) << *md;

  // Bad flag values: exit 2 naming the value.
  r = Gate({"--current=" + same, bdir, "--threshold=2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Has(r, "--threshold=2"));
  r = Gate({"--current=" + same, bdir, "--metric=real_time:higher"});
  EXPECT_EQ(r.exit_code, 2);

  // Accept the slowdown; then the slow run passes.
  r = Gate({"--current=" + slow, bdir, "--update"});
  EXPECT_EQ(r.exit_code, 0);
  r = Gate({"--current=" + slow, bdir});
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text;

  EXPECT_EQ(*gate::ReadTextFile(other_file), other_before);

  // A corrupt baseline file: exit 2, naming it; never overwritten by --update.
  const std::string mine = dir + "/Test_CPU_x2__no-GPU__CUDA-none__quick.json";
  Write("baselines/Test_CPU_x2__no-GPU__CUDA-none__quick.json", "{\"format\": 1,");
  r = Gate({"--current=" + same, bdir});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Has(r, mine));
  r = Gate({"--current=" + same, bdir, "--update"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(*gate::ReadTextFile(mine), "{\"format\": 1,");
}

}  // namespace
