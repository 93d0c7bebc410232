// Baseline merging and atomic update: other cases and other machines are never lost,
// unverified cases are never stored, a malformed or foreign file is never overwritten.
#include "tools/gate/gate_baseline.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <tuple>

#include "gtest/gtest.h"
#include "tools/gate/gate_io.h"
#include "tools/gate/testdata/run_context_fixture.h"

namespace gate {
namespace {

using nlohmann::json;

json Entry(const std::string& name, double ns, int rep, double verified = 1.0) {
  return {{"name", name},    {"run_type", "iteration"}, {"repetition_index", rep},
          {"real_time", ns}, {"time_unit", "ns"},       {"verified", verified}};
}

json Context(const std::string& cpu, const std::string& commit) {
  testdata::FakeCpu c;
  c.model_name = cpu;
  json ctx = testdata::BenchContext(testdata::FakeRunContext(c), commit);
  ctx["host_name"] = "vm";
  return ctx;
}

Run MakeRun(const json& context, const std::vector<json>& entries) {
  json j = {{"context", context}, {"benchmarks", entries}};
  return *ParseRun(j, "current.json");
}

std::string TmpDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

TEST(GateBaselineTest, MergeReplacesRunCasesKeepsOthersSkipsUnverified) {
  MachineKey key = *KeyFromContext(Context("AMD EPYC", "c1"), "run.json");
  gate::Run first = MakeRun(Context("AMD EPYC", "c1"), {Entry("BM_A", 10, 0), Entry("BM_B", 20, 0)});
  UpdateStats st;
  json doc = MergeBaseline(nullptr, first, key, "quick", true, "2024-01-01T00:00:00Z", &st);
  EXPECT_EQ(st.updated_cases, 2);
  EXPECT_EQ(doc["format"], kBaselineFormat);
  EXPECT_EQ(doc["provenance"]["commit"], "c1");
  EXPECT_EQ(doc["provenance"]["host_name"], "vm");
  EXPECT_EQ(doc["benchmarks"][0]["mlbench_recorded"]["commit"], "c1");
  EXPECT_EQ(doc["benchmarks"][0]["mlbench_recorded"]["date"], "2024-01-01T00:00:00Z");  // no run date: now

  // Second run: only BM_A (a filter), and an unverified BM_B that must not replace the old one.
  gate::Run second = MakeRun(Context("AMD EPYC", "c2"), {Entry("BM_A", 11, 0), Entry("BM_B", 99, 0, 0.0)});
  json doc2 = MergeBaseline(&doc, second, key, "quick", true, "2024-01-02T00:00:00Z", &st);
  EXPECT_EQ(st.updated_cases, 1);
  EXPECT_EQ(st.kept_cases, 1);
  EXPECT_EQ(st.skipped_unverified, 1);
  gate::Run merged = *ParseRun(doc2, "baseline");
  ASSERT_EQ(merged.cases.size(), 2u);
  EXPECT_EQ(merged.cases["BM_A"][0]["real_time"], 11.0);
  EXPECT_EQ(merged.cases["BM_A"][0]["mlbench_recorded"]["commit"], "c2");
  EXPECT_EQ(merged.cases["BM_B"][0]["real_time"], 20.0);
  EXPECT_EQ(merged.cases["BM_B"][0]["mlbench_recorded"]["commit"], "c1");
  EXPECT_EQ(doc2["history"].size(), 2u);
  EXPECT_EQ(doc2["provenance"]["commit"], "c2");
}

TEST(GateBaselineTest, PoolingKeepsTheMostRecentRecordings) {
  MachineKey key = *KeyFromContext(Context("AMD EPYC", "c1"), "run.json");
  json doc;
  UpdateStats st;
  for (int run = 0; run < 4; ++run) {
    // Same commit, same update date: the runs' own measurement dates tell them apart.
    json ctx = Context("AMD EPYC", "c1");
    ctx["mlbench"]["date"] = "2024-01-0" + std::to_string(run + 1) + "T00:00:00Z";
    gate::Run r = MakeRun(ctx, {Entry("BM_A", 10 + run, 0), Entry("BM_A", 10 + run, 1)});
    doc = MergeBaseline(run == 0 ? nullptr : &doc, r, key, "quick", true, "same-update-date", &st,
                        /*pool_runs=*/3);
  }
  gate::Run merged = *ParseRun(doc, "baseline");
  // 3 recordings x 2 repetitions: runs 1, 2, 3; run 0 dropped.
  ASSERT_EQ(merged.cases["BM_A"].size(), 6u);
  EXPECT_EQ(merged.cases["BM_A"][0]["real_time"], 11.0);
  EXPECT_EQ(merged.cases["BM_A"][5]["real_time"], 13.0);
  EXPECT_EQ(st.max_recordings, 3);
  // Without pooling, an update replaces.
  gate::Run r = MakeRun(Context("AMD EPYC", "c9"), {Entry("BM_A", 20, 0)});
  json replaced = MergeBaseline(&doc, r, key, "quick", true, "d9", &st);
  EXPECT_EQ((*ParseRun(replaced, "b")).cases["BM_A"].size(), 1u);
}

// The same run recorded twice with --pool: one recording, not its repetitions counted twice
// (which ParseRun would refuse as duplicated (case, repetition) entries).
TEST(GateBaselineTest, PoolingTheSameRunTwiceKeepsOneRecording) {
  MachineKey key = *KeyFromContext(Context("AMD EPYC", "c1"), "run.json");
  json ctx = Context("AMD EPYC", "c1");
  ctx["mlbench"]["date"] = "2024-01-01T00:00:00Z";
  gate::Run r = MakeRun(ctx, {Entry("BM_A", 10, 0), Entry("BM_A", 11, 1)});
  UpdateStats st;
  json doc = MergeBaseline(nullptr, r, key, "quick", true, "d1", &st, /*pool_runs=*/3);
  doc = MergeBaseline(&doc, r, key, "quick", true, "d2", &st, /*pool_runs=*/3);
  absl::StatusOr<gate::Run> merged = ParseRun(doc, "baseline");
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_EQ(merged->cases["BM_A"].size(), 2u);
  EXPECT_EQ(st.max_recordings, 1);
}

// A --current that is itself a baseline keeps its recordings' tags: one repetition recorded
// before tags existed, beside the same repetition tagged with this run's commit and date, stays
// two samples of two recordings instead of becoming one sample twice (found by
// gate_baseline_fuzz).
TEST(GateBaselineTest, ACurrentThatIsABaselineKeepsItsRecordings) {
  json ctx = Context("AMD EPYC", "c1");
  ctx["mlbench"]["date"] = "2024-01-01T00:00:00Z";
  MachineKey key = *KeyFromContext(ctx, "run.json");
  json tagged = Entry("BM_A", 10, 0);
  tagged["mlbench_recorded"] = {{"commit", "c1"}, {"date", "2024-01-01T00:00:00Z"}};
  const json doc_in = {{"context", ctx}, {"benchmarks", {Entry("BM_A", 11, 0), tagged}}};
  const gate::Run current = *ParseRun(doc_in, "current.json");
  for (int pool : {1, 3}) {
    UpdateStats st;
    json doc = MergeBaseline(&doc_in, current, key, "quick", true, "d", &st, pool);
    EXPECT_TRUE(ValidateBaseline(doc, key, "merged.json").ok()) << ValidateBaseline(doc, key, "merged.json");
    absl::StatusOr<gate::Run> merged = ParseRun(doc, "merged.json");
    ASSERT_TRUE(merged.ok()) << merged.status();
  }
  // A fresh run (no tags) is still tagged with its commit and date.
  const gate::Run fresh = MakeRun(ctx, {Entry("BM_A", 10, 0)});
  json doc = MergeBaseline(nullptr, fresh, key, "quick", true, "d", nullptr, 1);
  EXPECT_EQ(doc["benchmarks"][0]["mlbench_recorded"]["commit"], "c1");
}

TEST(GateBaselineTest, UpdateFileKeepsOtherMachinesAndRefusesBadFiles) {
  const std::string dir = TmpDir() + "/baselines_test/nested";
  gate::Run a_run = MakeRun(Context("CPU A", "c1"), {Entry("BM_A", 10, 0)});
  gate::Run b_run = MakeRun(Context("CPU B", "c1"), {Entry("BM_A", 30, 0)});
  MachineKey a = *KeyFromContext(a_run.context, "run.json");
  MachineKey b = *KeyFromContext(b_run.context, "run.json");
  const std::string pa = dir + "/" + a.FileName("quick");
  const std::string pb = dir + "/" + b.FileName("quick");
  ASSERT_NE(pa, pb);
  ASSERT_TRUE(UpdateBaselineFile(pa, a_run, a, "quick", true, "d1").ok());  // creates the folders
  ASSERT_TRUE(UpdateBaselineFile(pb, b_run, b, "quick", true, "d1").ok());
  gate::Run a_run2 = MakeRun(Context("CPU A", "c2"), {Entry("BM_A", 12, 0)});
  absl::StatusOr<UpdateStats> st = UpdateBaselineFile(pa, a_run2, a, "quick", true, "d2");
  ASSERT_TRUE(st.ok()) << st.status();
  // Machine B's file is untouched.
  absl::StatusOr<json> jb = ReadJsonFile(pb);
  ASSERT_TRUE(jb.ok());
  EXPECT_EQ((*jb)["benchmarks"][0]["real_time"], 30.0);
  absl::StatusOr<json> ja = ReadJsonFile(pa);
  ASSERT_TRUE(ja.ok());
  EXPECT_EQ((*ja)["benchmarks"][0]["real_time"], 12.0);
  EXPECT_TRUE(ValidateBaseline(*ja, a, pa).ok());

  // A file holding another machine's key is refused, and left as it was.
  EXPECT_FALSE(UpdateBaselineFile(pb, a_run, a, "quick", true, "d3").ok());
  EXPECT_EQ((*ReadJsonFile(pb))["benchmarks"][0]["real_time"], 30.0);

  // A malformed file is refused (exit 2 in the tool), and not overwritten.
  { std::ofstream(pa) << "{\"format\": "; }
  absl::StatusOr<UpdateStats> bad = UpdateBaselineFile(pa, a_run, a, "quick", true, "d4");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(pa), std::string::npos);
  EXPECT_EQ(*ReadTextFile(pa), "{\"format\": ");
}

// A baseline recorded on another CPU generation behind the same model name (a crafted run
// context: family 26 model 2, the Zen 5 VMs) is refused, naming the fields that differ.
TEST(GateBaselineTest, AnotherCpuSignatureIsRefusedNotCompared) {
  const std::string dir = TmpDir() + "/baselines_signature";
  testdata::FakeCpu zen5;
  zen5.family = 26;
  zen5.model = 2;
  gate::Run zen5_run =
      MakeRun(testdata::BenchContext(testdata::FakeRunContext(zen5)), {Entry("BM_A", 10, 0)});
  gate::Run zen4_run = MakeRun(Context("AMD EPYC", "c1"), {Entry("BM_A", 20, 0)});
  MachineKey zen5_key = *KeyFromContext(zen5_run.context, "zen5.json");
  MachineKey zen4_key = *KeyFromContext(zen4_run.context, "zen4.json");
  const std::string p5 = dir + "/" + zen5_key.FileName("quick");
  ASSERT_TRUE(UpdateBaselineFile(p5, zen5_run, zen5_key, "quick", true, "d1").ok());
  absl::Status s = ValidateBaseline(*ReadJsonFile(p5), zen4_key, p5);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("another machine"), std::string::npos) << s;
  EXPECT_NE(s.message().find("cpu.family: 26 (baseline) vs 25 (this run)"), std::string::npos) << s;
  EXPECT_NE(s.message().find("cpu.model: 2 (baseline) vs 17 (this run)"), std::string::npos) << s;
  // Looking for this machine's file, the gate lists that one with its differences.
  std::vector<std::string> others = OtherMachinesBaselines(dir, "quick", zen4_key);
  ASSERT_EQ(others.size(), 1u);
  EXPECT_NE(others[0].find(zen5_key.FileName("quick")), std::string::npos) << others[0];
  EXPECT_NE(others[0].find("cpu.family: 26 (baseline) vs 25 (this run)"), std::string::npos) << others[0];
  EXPECT_TRUE(OtherMachinesBaselines(dir, "full", zen4_key).empty());
}

TEST(GateBaselineTest, OldFormatBaselineIsRefused) {
  MachineKey key = *KeyFromContext(Context("AMD EPYC", "c1"), "run.json");
  json old = {{"format", "mlbench-gate-baseline/1"}, {"key", "AMD EPYC x2 | no GPU | CUDA none"}};
  absl::Status s = ValidateBaseline(old, key, "old.json");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("old machine key"), std::string::npos) << s;
}

// Found by fuzz/gate_baseline_fuzz: a "format" that is not a string (an array, a number) made
// ValidateBaseline throw and gate abort. Now refused as not a baseline file.
TEST(GateBaselineTest, FormatThatIsNotAStringIsRefused) {
  MachineKey key = *KeyFromContext(Context("AMD EPYC", "c1"), "run.json");
  for (json format : {json::array(), json(1), json::object(), json(nullptr)}) {
    json doc = {{"format", format}};
    absl::Status s = ValidateBaseline(doc, key, "odd.json");
    ASSERT_FALSE(s.ok()) << format;
    EXPECT_NE(s.message().find("is not a baseline file"), std::string::npos) << s;
  }
}

// Found by fuzz/gate_baseline_fuzz: a file of the suite's name that is JSON but not an object
// made the listing throw (value() of an array) and gate abort.
TEST(GateBaselineTest, OtherMachinesListsAFileThatIsNotAnObject) {
  const std::string dir = TmpDir() + "/not_an_object";
  ASSERT_TRUE(mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST);
  ASSERT_TRUE(WriteFileAtomically(dir + "/x__quick.json", "[1, 2, 3]").ok());
  MachineKey key = *KeyFromContext(Context("AMD EPYC", "c1"), "run.json");
  std::vector<std::string> others = OtherMachinesBaselines(dir, "quick", key);
  ASSERT_EQ(others.size(), 1u);
  EXPECT_NE(others[0].find("x__quick.json: \"machine\" is not an object"), std::string::npos) << others[0];
}

// Found by fuzz/gate_baseline_fuzz: a baseline of this machine whose "benchmarks" held a
// number, or an entry without a string name, passed ValidateBaseline and made gate --update
// throw in MergeBaseline. Now refused, and the file is left as it was.
TEST(GateBaselineTest, UpdateRefusesABaselineWhoseEntriesAreNotARun) {
  MachineKey key = *KeyFromContext(Context("AMD EPYC", "c1"), "run.json");
  gate::Run run = MakeRun(Context("AMD EPYC", "c1"), {Entry("BM_A", 10, 0)});
  json doc = MergeBaseline(nullptr, run, key, "quick", true, "2024-01-01T00:00:00Z", nullptr);
  ASSERT_TRUE(ValidateBaseline(doc, key, "good.json").ok());
  for (json bad : {json(7), json::array({1}), json::array({{{"name", 5}}})}) {
    doc["benchmarks"] = bad;
    absl::Status s = ValidateBaseline(doc, key, "bad.json");
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("'bad.json'"), std::string::npos) << s;
    const std::string path = TmpDir() + "/bad_entries__quick.json";
    ASSERT_TRUE(WriteFileAtomically(path, doc.dump()).ok());
    auto st = UpdateBaselineFile(path, run, key, "quick", true, "2024-01-02T00:00:00Z");
    EXPECT_FALSE(st.ok()) << bad;
    EXPECT_EQ(*ReadTextFile(path), doc.dump());
  }
}

// Found by fuzz/gate_run_fuzz: an error_occurred or error_message of another kind made nlohmann's
// value() throw (the process aborted); now the run is refused naming the field.
TEST(GateBaselineTest, ParseRunRefusesErrorFieldsOfAnotherKind) {
  for (const auto& [field, value, kind] : {std::tuple{"error_occurred", json("yes"), "string"},
                                          std::tuple{"error_occurred", json(1), "number"},
                                          std::tuple{"error_message", json(3), "number"}}) {
    json entry = Entry("BM_A", 10, 0);
    entry[field] = value;
    absl::StatusOr<gate::Run> run = ParseRun(json{{"benchmarks", {entry}}}, "run.json");
    ASSERT_FALSE(run.ok()) << field;
    EXPECT_NE(run.status().message().find(std::string("benchmarks[0].") + field + " is a " + kind),
              std::string::npos)
        << run.status();
  }
}

}  // namespace
}  // namespace gate
