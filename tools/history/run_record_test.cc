// Benchmark JSON to history rows: units, counters, what is left out, and what is refused.
#include "tools/history/run_record.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tools/gate/testdata/run_context_fixture.h"

namespace history {
namespace {

nlohmann::json Entry(const std::string& name, int rep, double real_ms, nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json e = {{"name", name},        {"run_type", "iteration"}, {"repetitions", 2},
                      {"repetition_index", rep}, {"iterations", 10},        {"real_time", real_ms},
                      {"cpu_time", real_ms / 2}, {"time_unit", "ms"},       {"tokens_per_second", 100.0 + rep}};
  for (auto& [k, v] : extra.items()) e[k] = v;
  return e;
}

nlohmann::json RunJson(const std::vector<nlohmann::json>& entries, const std::string& commit = "abc") {
  nlohmann::json rc = testdata::FakeRunContext();
  rc["build"]["commit"] = commit;
  nlohmann::json j = {{"context", testdata::BenchContext(rc, commit)}};
  j["benchmarks"] = nlohmann::json::array();
  for (const nlohmann::json& e : entries) j["benchmarks"].push_back(e);
  return j;
}

TEST(RunRecord, TimesInSecondsCountersAsWrittenUnderTheMachineKey) {
  auto r = ParseRunJson(RunJson({Entry("BM_A", 0, 2.0), Entry("BM_A", 1, 3.0)}), "a.json", {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->record.commit, "abc");
  EXPECT_EQ(r->record.date, "2026-11-30T00:00:00Z");
  EXPECT_EQ(r->record.machine_hash.size(), 8u);
  std::map<std::string, double> got;
  for (const ResultRow& x : r->record.rows) got[absl::StrCat(x.case_name, " ", x.metric, " ", x.repetition)] = x.value;
  EXPECT_DOUBLE_EQ(got["BM_A real_time 0"], 2e-3);
  EXPECT_DOUBLE_EQ(got["BM_A cpu_time 1"], 1.5e-3);
  EXPECT_DOUBLE_EQ(got["BM_A tokens_per_second 1"], 101.0);
  EXPECT_EQ(got.count("BM_A iterations 0"), 0u);  // Google Benchmark's own fields are not metrics
  EXPECT_EQ(r->left_out, 0);
}

TEST(RunRecord, LeavesOutErroredUnverifiedAndDisturbedRepetitions) {
  auto r = ParseRunJson(RunJson({Entry("BM_A", 0, 2.0), Entry("BM_A", 1, 2.0, {{"verified", 0}}),
                             Entry("BM_B", 0, 2.0, {{"disturbed", 1}}),
                             Entry("BM_C", 0, 2.0, {{"error_occurred", true}, {"error_message", "x"}})}),
                        "a.json", {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->left_out, 3);
  for (const ResultRow& x : r->record.rows) {
    EXPECT_EQ(x.case_name, "BM_A");
    EXPECT_EQ(x.repetition, 0);
  }
}

TEST(RunRecord, RefusesWithTheFileAndTheReason) {
  auto nothing = ParseRunJson(RunJson({Entry("BM_A", 0, 2.0, {{"verified", 0}})}), "n.json", {});
  ASSERT_FALSE(nothing.ok());
  EXPECT_NE(nothing.status().message().find("'n.json': nothing to record"), std::string::npos) << nothing.status();

  auto no_commit = ParseRunJson(RunJson({Entry("BM_A", 0, 2.0)}, "unknown"), "u.json", {});
  ASSERT_FALSE(no_commit.ok());
  EXPECT_NE(no_commit.status().message().find("--commit"), std::string::npos) << no_commit.status();
  RecordOptions o;
  o.commit = "0123456789abcdef0123456789abcdef01234567";
  o.date = "2025-01-02";
  auto imported = ParseRunJson(RunJson({Entry("BM_A", 0, 2.0)}, "unknown"), "u.json", o);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->record.commit, o.commit);
  EXPECT_EQ(imported->record.date, "2025-01-02");

  o.date = "yesterday";
  auto bad_date = ParseRunJson(RunJson({Entry("BM_A", 0, 2.0)}), "d.json", o);
  ASSERT_FALSE(bad_date.ok());
  EXPECT_NE(bad_date.status().message().find("'yesterday' is not ISO 8601"), std::string::npos);

  nlohmann::json keyless = RunJson({Entry("BM_A", 0, 2.0)});
  keyless["context"] = nlohmann::json::object();
  auto no_key = ParseRunJson(keyless, "k.json", {});
  ASSERT_FALSE(no_key.ok());
  EXPECT_NE(no_key.status().message().find("k.json"), std::string::npos) << no_key.status();

  auto not_a_run = ParseRunJson({{"hello", 1}}, "h.json", {});
  ASSERT_FALSE(not_a_run.ok());
  EXPECT_NE(not_a_run.status().message().find("h.json"), std::string::npos) << not_a_run.status();

  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = absl::StrCat(dir ? dir : "/tmp", "/broken.json");
  std::ofstream(path) << "{\"benchmarks\": [";
  auto broken = ReadRunFile(path, {});
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find(path), std::string::npos) << broken.status();
}

TEST(RunRecord, ReadsGoogleBenchmarksBareNaN) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = absl::StrCat(dir ? dir : "/tmp", "/nan.json");
  nlohmann::json j = RunJson({Entry("BM_A", 0, 2.0)});
  j["benchmarks"].push_back({{"name", "BM_A_cv"}, {"run_type", "aggregate"}, {"aggregate_name", "cv"}, {"x", 0}});
  std::string text = j.dump();
  const size_t at = text.find("\"x\":0");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 5, "\"x\":NaN");
  std::ofstream(path) << text;
  auto r = ReadRunFile(path, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->record.rows.empty());
}

TEST(RunRecord, Iso8601) {
  for (const char* ok : {"2026-11-30", "2026-11-30T12:00Z", "2026-11-30T12:00:00Z", "2026-11-30T12:00:00.123+01:00",
                         "2026-11-30T12:00:00"}) {
    EXPECT_TRUE(IsIso8601(ok)) << ok;
  }
  for (const char* bad : {"", "2026-1-30", "2026-11-30 12:00", "2026-11-30T12", "2026-11-30T12:00:00ZZ", "30/11/2026",
                          "2026-11-30T12:00:00.+01:00"}) {
    EXPECT_FALSE(IsIso8601(bad)) << bad;
  }
}

}  // namespace
}  // namespace history
