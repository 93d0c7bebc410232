// End to end: the //tools:gate binary's exit codes and messages on synthetic run files.
//   0 passed; 1 command line not understood; 2 bad input or a broken measurement; 3 a case
//   REGRESSED; 4 no baseline for this machine key.
// Covers the baseline lifecycle, another machine's baseline left alone and refused, every way
// a broken measurement or a comparison of nothing must fail, and paired A/B runs.
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "harness/subprocess.h"
#include "nlohmann/json.hpp"
#include "tools/gate/gate_io.h"
#include "tools/gate/gate_key.h"
#include "tools/gate/testdata/gate_process.h"
#include "tools/gate/testdata/run_context_fixture.h"

namespace {

using nlohmann::json;
using testdata::Gate;
using testdata::Tmp;


testdata::FakeCpu Cpu(const std::string& name) {
  testdata::FakeCpu c;
  c.model_name = name;
  return c;
}

// A run as tools/bench writes it: 9 repetitions of two cases and the calibration case.
json RunJson(const testdata::FakeCpu& cpu, double a_ns, double b_ns, double cal_ns,
             double jitter_step = 0.002) {
  json j = {{"context", testdata::BenchContext(testdata::FakeRunContext(cpu))},
            {"benchmarks", json::array()}};
  for (int r = 0; r < 9; ++r) {
    double jitter = 1.0 + jitter_step * ((r * 5) % 9);
    for (auto [name, ns] :
         {std::pair<std::string, double>{"BM_Calibration/cpu/fma/real_time/threads:2", cal_ns},
          {"BM_A/cpu", a_ns},
          {"BM_B/cpu", b_ns}}) {
      j["benchmarks"].push_back({{"name", name},
                                 {"run_type", "iteration"},
                                 {"repetition_index", r},
                                 {"real_time", ns * jitter},
                                 {"cpu_time", ns * jitter},
                                 {"time_unit", "ns"},
                                 {"verified", 1.0}});
    }
  }
  return j;
}
json RunJson(const std::string& cpu, double a_ns, double b_ns, double cal_ns) {
  return RunJson(Cpu(cpu), a_ns, b_ns, cal_ns);
}

std::string KeyFile(const std::string& cpu) {
  return gate::KeyFromRunContext(testdata::FakeRunContext(Cpu(cpu)))->FileName("quick");
}

std::string Write(const std::string& name, const std::string& text) {
  std::string p = Tmp() + "/" + name;
  std::ofstream(p) << text;
  return p;
}

bool Has(const harness::ProcessResult& r, const std::string& s) {
  return (r.stdout_text + r.stderr_text).find(s) != std::string::npos;
}

#define EXPECT_EXIT_AND_SAY(r, code, phrase)                              \
  do {                                                                    \
    EXPECT_EQ((r).exit_code, code) << (r).stdout_text << (r).stderr_text; \
    EXPECT_TRUE(Has(r, phrase)) << "missing '" << (phrase) << "' in:\n"   \
                                << (r).stdout_text << (r).stderr_text;    \
  } while (0)

TEST(GateEndToEndTest, Lifecycle) {
  const std::string dir = Tmp() + "/baselines";
  const std::string bdir = "--baseline_dir=" + dir;

  // Malformed input: exit 2, naming the file and where.
  std::string bad = Write("bad.json", "{\"benchmarks\": [1, 2,, 3]}");
  harness::ProcessResult r = Gate({"--current=" + bad, bdir, "--update"});
  EXPECT_EXIT_AND_SAY(r, 2, "at byte offset 21");
  EXPECT_TRUE(Has(r, bad)) << r.stderr_text;
  r = Gate({"--current=" + Tmp() + "/nope.json", bdir});
  EXPECT_EXIT_AND_SAY(r, 2, "nope.json");

  // Another machine's baseline (same model name, another CPU generation), which must survive
  // everything below.
  testdata::FakeCpu zen5 = Cpu("Test CPU");
  zen5.family = 26;
  zen5.model = 2;
  std::string other = Write("other.json", RunJson(zen5, 100, 100, 10).dump());
  r = Gate({"--current=" + other, bdir, "--update"});  // creates the folder
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  const std::string other_file =
      dir + "/" + gate::KeyFromRunContext(testdata::FakeRunContext(zen5))->FileName("quick");
  std::string other_before = *gate::ReadTextFile(other_file);

  // No baseline for this key: exit 4, nothing compared; the other machine's file is listed
  // with the fields that differ.
  std::string base = Write("base.json", RunJson("Test CPU", 1000, 2000, 10).dump());
  r = Gate({"--current=" + base, bdir});
  EXPECT_EXIT_AND_SAY(r, 4, "NO BASELINE for machine key 'Test CPU [AuthenticAMD family 25 model 17");
  EXPECT_TRUE(Has(r, "cpu.family: 26 (baseline) vs 25 (this run)")) << r.stdout_text;
  EXPECT_TRUE(Has(r, "NEW"));

  // An explicit --baseline of the other machine: refused, not compared.
  r = Gate({"--current=" + base, "--baseline=" + other_file});
  EXPECT_EXIT_AND_SAY(r, 2, "refused, not compared");

  // Record it.
  r = Gate({"--current=" + base, bdir, "--update"});
  ASSERT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  EXPECT_TRUE(Has(r, "created"));

  // Unchanged: passes.
  std::string same = Write("same.json", RunJson("Test CPU", 1001, 2002, 10).dump());
  r = Gate({"--current=" + same, bdir});
  EXPECT_EXIT_AND_SAY(r, 0, "passed (2 case(s) compared");

  // The whole machine 40% slower, calibration included: a regression by default (the ratio
  // is shown), normalised away with --normalize.
  std::string loaded = Write("loaded.json", RunJson("Test CPU", 1400, 2800, 14).dump());
  r = Gate({"--current=" + loaded, bdir});
  EXPECT_EXIT_AND_SAY(r, 3, "1.400x the baseline's time (shown only");
  r = Gate({"--current=" + loaded, bdir, "--normalize"});
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text;

  // BM_A 25% slower: exit 3, the table, the baseline file and the update command.
  std::string slow = Write("slow.json", RunJson("Test CPU", 1250, 2000, 10).dump());
  const std::string summary = Tmp() + "/summary.md";
  r = Gate({"--current=" + slow, bdir, "--summary=" + summary});
  EXPECT_EXIT_AND_SAY(r, 3, "REGRESSED   BM_A/cpu");
  EXPECT_TRUE(Has(r, "+25.0%"));
  EXPECT_TRUE(Has(r, KeyFile("Test CPU")));
  EXPECT_TRUE(Has(r, "bazel run //tools:gate -- --current=" + slow + " --baseline_dir=" + dir + " --update"))
      << r.stdout_text;
  absl::StatusOr<std::string> md = gate::ReadTextFile(summary);
  ASSERT_TRUE(md.ok());
  EXPECT_NE(md->find("| **REGRESSED** | `BM_A/cpu` |"), std::string::npos) << *md;

  // Bad flag values: exit 2 naming the value.
  r = Gate({"--current=" + same, bdir, "--threshold=2"});
  EXPECT_EXIT_AND_SAY(r, 2, "--threshold=2");
  r = Gate({"--current=" + same, bdir, "--metric=real_time:higher"});
  EXPECT_EQ(r.exit_code, 2);

  // Accept the slowdown; then the slow run passes.
  r = Gate({"--current=" + slow, bdir, "--update"});
  EXPECT_EQ(r.exit_code, 0);
  r = Gate({"--current=" + slow, bdir});
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text;

  EXPECT_EQ(*gate::ReadTextFile(other_file), other_before);

  // A corrupt baseline file: exit 2, naming it; never overwritten by --update.
  const std::string mine = dir + "/" + KeyFile("Test CPU");
  Write("baselines/" + KeyFile("Test CPU"), "{\"format\": 1,");
  r = Gate({"--current=" + same, bdir});
  EXPECT_EXIT_AND_SAY(r, 2, mine);
  r = Gate({"--current=" + same, bdir, "--update"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(*gate::ReadTextFile(mine), "{\"format\": 1,");
}

// Every way a measurement can be broken, or a comparison empty, fails with the bad-input code
// and says why; usage errors never share the regression's code.
TEST(GateEndToEndTest, NeverGreenOnABrokenMeasurement) {
  const std::string dir = Tmp() + "/baselines_broken";
  const std::string bdir = "--baseline_dir=" + dir;
  std::string good = Write("good.json", RunJson("Broken CPU", 1000, 2000, 10).dump());
  ASSERT_EQ(Gate({"--current=" + good, bdir, "--update"}).exit_code, 0);

  // A case that failed its output check (verified = 0): UNVERIFIED, exit 2.
  json j = RunJson("Broken CPU", 1000, 2000, 10);
  for (json& b : j["benchmarks"]) {
    if (b["name"] == "BM_A/cpu") b["verified"] = 0.0;
  }
  harness::ProcessResult r = Gate({"--current=" + Write("unverified.json", j.dump()), bdir});
  EXPECT_EXIT_AND_SAY(r, 2, "1 case(s) UNVERIFIED");
  EXPECT_TRUE(Has(r, "output check failed (verified = 0)"));
  // ... and it is not recorded either.
  EXPECT_EQ(Gate({"--current=" + Write("unverified2.json", j.dump()), bdir, "--update"}).exit_code, 2);

  // An errored case: UNVERIFIED; a skipped one (harness/skip.h): SKIPPED, not a failure.
  j = RunJson("Broken CPU", 1000, 2000, 10);
  for (json& b : j["benchmarks"]) {
    if (b["name"] == "BM_B/cpu") {
      b["error_occurred"] = true;
      b["error_message"] = "incorrect fp32 matmul: C[0, 0] = 12345";
    }
  }
  r = Gate({"--current=" + Write("errored.json", j.dump()), bdir});
  EXPECT_EXIT_AND_SAY(r, 2, "incorrect fp32 matmul");
  for (json& b : j["benchmarks"]) {
    if (b["name"] == "BM_B/cpu") b["error_message"] = "skipped: no CUDA device: no driver";
  }
  r = Gate({"--current=" + Write("skipped.json", j.dump()), bdir});
  EXPECT_EXIT_AND_SAY(r, 0, "SKIPPED");

  // No benchmarks at all.
  r = Gate({"--current=" +
                Write("empty.json", json{{"context", j["context"]}, {"benchmarks", json::array()}}.dump()),
            bdir});
  EXPECT_EXIT_AND_SAY(r, 2, "holds no benchmark results");

  // A metric no case has.
  r = Gate({"--current=" + good, bdir, "--metric=bogus_counter"});
  EXPECT_EXIT_AND_SAY(r, 2, "no case has the metric 'bogus_counter'");

  // A negative time.
  j = RunJson("Broken CPU", 1000, 2000, 10);
  j["benchmarks"][1]["real_time"] = -4850.0;
  r = Gate({"--current=" + Write("negative.json", j.dump()), bdir});
  EXPECT_EXIT_AND_SAY(r, 2, "a time must be finite and positive");

  // A baseline folder that does not exist (a typo): exit 2, not "every case NEW".
  r = Gate({"--current=" + good, "--baseline_dir=" + Tmp() + "/no_such_folder"});
  EXPECT_EXIT_AND_SAY(r, 2, "does not exist");

  // No run context: the machine cannot be identified.
  j = RunJson("Broken CPU", 1000, 2000, 10);
  r = Gate(
      {"--current=" +
           Write("plain.json", json{{"context", {{"num_cpus", 2}}}, {"benchmarks", j["benchmarks"]}}.dump()),
       bdir});
  EXPECT_EXIT_AND_SAY(r, 2, "cannot be identified");

  // Usage errors: Abseil's code 1, never 3.
  r = Gate({"--current=" + good, bdir, "--treshold=0.1"});
  EXPECT_EXIT_AND_SAY(r, 1, "treshold");
  r = Gate({"--current=" + good, bdir, "--update=maybe"});
  EXPECT_EXIT_AND_SAY(r, 1, "maybe");
  r = Gate({"--help"});
  EXPECT_TRUE(Has(r, "3 regression")) << r.stdout_text;
}

// A/B runs (tools/bench --against writes both sides): paired round by round.
TEST(GateEndToEndTest, PairedAbRuns) {
  // The machine drifts by up to 16% from round to round, the same for both sides of a round.
  auto side = [](double a_ns, double b_ns) {
    json j = RunJson(Cpu("AB CPU"), a_ns, b_ns, 10, /*jitter_step=*/0.02);
    return j;
  };
  std::string base = Write("ab.base.json", side(1000, 2000).dump());
  std::string same = Write("ab.same.json", side(1000, 2000).dump());
  harness::ProcessResult r = Gate({"--current=" + same, "--against=" + base});
  EXPECT_EXIT_AND_SAY(r, 0, "Mann-Whitney U over interleaved A/B rounds");
  r = Gate({"--current=" + same, "--against=" + base, "--ab_test=signed_rank"});
  EXPECT_EXIT_AND_SAY(r, 0, "Wilcoxon signed-rank over the per-round ratios");
  r = Gate({"--current=" + same, "--against=" + base, "--ab_test=bogus"});
  EXPECT_EXIT_AND_SAY(r, 2, "--ab_test=bogus");
  std::string slow = Write("ab.slow.json", side(1250, 2000).dump());
  for (const char* test : {"--ab_test=rank_sum", "--ab_test=signed_rank"}) {
    r = Gate({"--current=" + slow, "--against=" + base, test});
    EXPECT_EXIT_AND_SAY(r, 3, "REGRESSED   BM_A/cpu");
    EXPECT_TRUE(Has(r, "+25.0%")) << r.stdout_text;
  }
  // Both sides must come from one machine.
  testdata::FakeCpu other = Cpu("AB CPU");
  other.stepping = 2;
  std::string foreign = Write("ab.foreign.json", RunJson(other, 1000, 2000, 10).dump());
  r = Gate({"--current=" + same, "--against=" + foreign});
  EXPECT_EXIT_AND_SAY(r, 2, "cpu.stepping: 2 (baseline) vs 1 (this run)");
  r = Gate({"--current=" + same, "--against=" + base, "--update"});
  EXPECT_EXIT_AND_SAY(r, 2, "cannot be used with --against");
}

}  // namespace
