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

constexpr char kSha[] = "0123456789abcdef0123456789abcdef01234567";

nlohmann::json RunJson(const std::vector<nlohmann::json>& entries, const std::string& commit = kSha) {
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
  EXPECT_EQ(r->record.commit, kSha);
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
  EXPECT_EQ(imported->record.date, "2025-01-02T00:00:00Z");  // a bare date: midnight UTC

  o.date = "yesterday";
  auto bad_date = ParseRunJson(RunJson({Entry("BM_A", 0, 2.0)}), "d.json", o);
  ASSERT_FALSE(bad_date.ok());
  EXPECT_NE(bad_date.status().message().find("'d.json': --date='yesterday' is not a valid date"), std::string::npos)
      << bad_date.status();

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

// Dates are stored in UTC, checked: the run's own date and --date alike.
TEST(RunRecord, DatesAreCheckedAndStoredInUtc) {
  nlohmann::json j = RunJson({Entry("BM_A", 0, 2.0)});
  j["context"]["mlbench"]["run_context"]["date"] = "2026-12-01T12:30:00-12:00";
  auto own = ParseRunJson(j, "z.json", {});
  ASSERT_TRUE(own.ok()) << own.status();
  EXPECT_EQ(own->record.date, "2026-12-02T00:30:00Z");
  for (const char* bad : {"2026-13-45", "2026-02-30T25:61:61Z", "0000-00-00"}) {
    j["context"]["mlbench"]["run_context"]["date"] = bad;
    auto r = ParseRunJson(j, "z.json", {});
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find(absl::StrCat("'z.json': its date '", bad, "' is not a valid date")),
              std::string::npos)
        << r.status();
  }
}

// A commit is stored as a full id in lower case: HEAD, a short id or an upper-case id are the
// same commit as the full id, and without a way to resolve them only a full id is taken.
TEST(RunRecord, CommitsAreFullIdsInLowerCase) {
  const std::string upper = "0123456789ABCDEF0123456789ABCDEF01234567";
  EXPECT_TRUE(IsFullCommit(kSha));
  EXPECT_TRUE(IsFullCommit(upper + "+dirty"));
  EXPECT_FALSE(IsFullCommit("0123456"));
  EXPECT_FALSE(IsFullCommit("HEAD"));
  EXPECT_FALSE(IsFullCommit(std::string(40, 'g')));
  EXPECT_EQ(*NormalizeCommit(upper, "--commit", nullptr), kSha);
  EXPECT_EQ(*NormalizeCommit(upper + "+dirty", "--commit", nullptr), std::string(kSha) + "+dirty");
  for (const char* rev : {"HEAD", "0123456", "main"}) {
    auto refused = NormalizeCommit(rev, "--commit", nullptr);
    ASSERT_FALSE(refused.ok()) << rev;
    EXPECT_NE(refused.status().message().find(absl::StrCat("--commit '", rev, "' is not a full commit id (40 hex")),
              std::string::npos)
        << refused.status();
  }
  std::vector<std::string> asked;
  CommitResolver git = [&](const std::string& rev) -> absl::StatusOr<std::string> {
    asked.push_back(rev);
    if (rev == "HEAD" || rev == "0123456") return upper;
    return absl::NotFoundError("no such revision");
  };
  EXPECT_EQ(*NormalizeCommit("HEAD", "--commit", git), kSha);
  EXPECT_EQ(*NormalizeCommit("0123456+dirty", "--commit", git), std::string(kSha) + "+dirty");
  EXPECT_EQ(*NormalizeCommit(upper, "--commit", git), kSha);  // a full id needs no resolving
  EXPECT_EQ(asked, (std::vector<std::string>{"HEAD", "0123456"}));
  auto unknown = NormalizeCommit("nope", "--commit", git);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("does not resolve to a commit: no such revision"), std::string::npos)
      << unknown.status();

  RecordOptions o;
  o.resolve_commit = git;
  auto from_context = ParseRunJson(RunJson({Entry("BM_A", 0, 2.0)}, "0123456"), "c.json", o);
  ASSERT_TRUE(from_context.ok()) << from_context.status();
  EXPECT_EQ(from_context->record.commit, kSha);
  auto short_id = ParseRunJson(RunJson({Entry("BM_A", 0, 2.0)}, "abc"), "c.json", {});
  ASSERT_FALSE(short_id.ok());
  EXPECT_NE(short_id.status().message().find("'c.json': its run context's build.commit 'abc' is not a full commit id"),
            std::string::npos)
      << short_id.status();
}

// Google Benchmark's bare NaN / Infinity: a time refuses the run naming the value (tools/gate's
// parser would call it "a string"); a counter is left out and named.
TEST(RunRecord, NamesNaNAndInfinity) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = absl::StrCat(dir ? dir : "/tmp", "/nonfinite.json");
  auto write = [&](const std::string& from, const std::string& to) {
    std::string text = RunJson({Entry("BM_A", 0, 2.0), Entry("BM_A", 1, 2.5)}).dump();
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(path) << text;
  };
  for (const char* token : {"NaN", "Infinity", "-Infinity"}) {
    write("\"real_time\":2.0", absl::StrCat("\"real_time\":", token));
    auto r = ReadRunFile(path, {});
    ASSERT_FALSE(r.ok()) << token;
    EXPECT_NE(r.status().message().find(absl::StrCat("(BM_A) repetition 0: real_time is ", token, ", not a time")),
              std::string::npos)
        << r.status();
    EXPECT_EQ(r.status().message().find("a string"), std::string::npos) << r.status();
  }
  write("\"cpu_time\":1.25", "\"cpu_time\":NaN");
  auto cpu = ReadRunFile(path, {});
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.status().message().find("repetition 1: cpu_time is NaN"), std::string::npos) << cpu.status();

  write("\"tokens_per_second\":101.0", "\"tokens_per_second\":Infinity");
  auto counter = ReadRunFile(path, {});
  ASSERT_TRUE(counter.ok()) << counter.status();
  EXPECT_EQ(counter->dropped, (std::vector<std::string>{"BM_A repetition 1: counter tokens_per_second is Infinity"}));
  int tps = 0;
  for (const ResultRow& x : counter->record.rows) tps += x.metric == "tokens_per_second";
  EXPECT_EQ(tps, 1);  // repetition 0's is recorded, 1's left out

  // A repetition that errored is left out whatever its time says.
  std::string text = RunJson({Entry("BM_A", 0, 2.0), Entry("BM_A", 1, 2.5, {{"error_occurred", true}})}).dump();
  text.replace(text.find("\"real_time\":2.5"), 15, "\"real_time\":NaN");
  std::ofstream(path) << text;
  auto errored = ReadRunFile(path, {});
  ASSERT_TRUE(errored.ok()) << errored.status();
  EXPECT_EQ(errored->left_out, 1);
}

}  // namespace
}  // namespace history
