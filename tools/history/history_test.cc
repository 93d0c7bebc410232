// //tools:history end to end: 30 recorded runs with a +15% step at commit 20 are flagged by
// detect (exit 3, the commit named), a steady history is not, and bad input is exit 2 with the
// file and the reason. Runs dated in other zones sort by instant; invalid dates, commits that are
// not full ids and the same run spelled another way are refused; a file that is not one of our
// databases is refused unchanged; a failed first record leaves no file; list does not wait for a
// writer; NaN and Infinity are named; --permutations is bounded.
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "harness/subprocess.h"
#include "nlohmann/json.hpp"
#include "tools/gate/testdata/run_context_fixture.h"
#include "tools/history/edivisive.h"

namespace {

std::string Exe() { return absl::StrCat(std::getenv("TEST_SRCDIR"), "/mlbench/tools/history/history"); }
std::string Tmp(const std::string& name) {
  const char* d = std::getenv("TEST_TMPDIR");
  return absl::StrCat(d ? d : "/tmp", "/", name);
}

harness::ProcessResult History(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {Exe()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = harness::RunProcess(argv, /*capture_stderr=*/true);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : harness::ProcessResult{-1, "", ""};
}

// A benchmark file of 3 repetitions of BM_Step around `ms` milliseconds.
std::string WriteRun(int i, double ms, history::SplitMix64& rng) {
  nlohmann::json j = {{"context", testdata::BenchContext(testdata::FakeRunContext(), "ignored")}};
  j["benchmarks"] = nlohmann::json::array();
  for (int rep = 0; rep < 3; ++rep) {
    j["benchmarks"].push_back({{"name", "BM_Step"}, {"run_type", "iteration"}, {"repetitions", 3},
                               {"repetition_index", rep}, {"iterations", 1},
                               {"real_time", ms * (1 + 0.03 * rng.Normal())}, {"cpu_time", ms},
                               {"time_unit", "ms"}});
  }
  const std::string path = Tmp(absl::StrCat("run", i, ".json"));
  std::ofstream(path) << j.dump();
  return path;
}

std::string Commit(int i) { return absl::StrFormat("%040d", i); }  // a full 40-character id

std::string Bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string Sh(const std::string& script) {
  auto r = harness::RunProcess({"/bin/sh", "-c", script}, /*capture_stderr=*/true);
  EXPECT_TRUE(r.ok() && r->exit_code == 0) << script << "\n" << (r.ok() ? r->stderr_text : "");
  return r.ok() ? std::string(absl::StripAsciiWhitespace(r->stdout_text)) : "";
}

// A fresh database path: nothing there, nor beside it.
std::string FreshDb(const std::string& name) {
  const std::string db = Tmp(name);
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((db + suffix).c_str());
  return db;
}

TEST(History, FindsTheCommitOfAStepAndExits3) {
  const std::string db = Tmp("step.db");
  std::remove(db.c_str());
  history::SplitMix64 rng(42);
  for (int i = 1; i <= 30; ++i) {
    const std::string file = WriteRun(i, i >= 20 ? 115.0 : 100.0, rng);
    harness::ProcessResult r = History({"--db=" + db, "record", file, "--commit=" + Commit(i),
                                    absl::StrFormat("--date=2026-11-%02dT12:00:00Z", i)});
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    ASSERT_NE(r.stdout_text.find("recorded run"), std::string::npos) << r.stdout_text;
  }
  harness::ProcessResult list = History({"--db=" + db, "list"});
  EXPECT_EQ(list.exit_code, 0) << list.stderr_text;
  EXPECT_NE(list.stdout_text.find("BM_Step"), std::string::npos);
  EXPECT_NE(list.stdout_text.find("30 runs"), std::string::npos) << list.stdout_text;

  harness::ProcessResult d = History({"--db=" + db, "detect"});
  EXPECT_EQ(d.exit_code, 3) << d.stdout_text << d.stderr_text;
  EXPECT_NE(d.stdout_text.find("commit " + Commit(20) + ", 2026-11-20T12:00:00Z"), std::string::npos) << d.stdout_text;
  EXPECT_NE(d.stdout_text.find("REGRESSION (newest segment)"), std::string::npos) << d.stdout_text;

  // Only the first 19 commits: steady, exit 0.
  const std::string steady = Tmp("steady.db");
  std::remove(steady.c_str());
  history::SplitMix64 rng2(7);
  for (int i = 1; i <= 19; ++i) {
    ASSERT_EQ(History({"--db=" + steady, "record", WriteRun(100 + i, 100.0, rng2), "--commit=" + Commit(i),
                   absl::StrFormat("--date=2026-11-%02d", i)})
                  .exit_code,
              0);
  }
  harness::ProcessResult quiet = History({"--db=" + steady, "detect", "--case=^BM_Step$"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.stdout_text << quiet.stderr_text;
  EXPECT_NE(quiet.stdout_text.find("1 series examined, 0 with change points"), std::string::npos) << quiet.stdout_text;
}

// A +30% step at run 20 of 30, the slow runs written at -12:00 (the zone of the machine that ran
// them), the fast ones in UTC. As text "2026-12-01T12:3x:00-12:00" sorts before the fast runs'
// "2026-12-01T13:00:00Z"..., so a text order put the slow runs first and the step read as an
// improvement, exit 0; by instant it is the regression it is (exit 3), dated in UTC.
TEST(History, RunsInOtherZonesSortByInstant) {
  const std::string db = FreshDb("zones.db");
  history::SplitMix64 rng(42);
  for (int i = 1; i <= 30; ++i) {
    const std::string date =
        i >= 20 ? absl::StrFormat("2026-12-01T12:%02d:00-12:00", 30 + i - 20)          // 2026-12-02T00:30Z on
                : absl::StrFormat("2026-12-01T%02d:%02d:00Z", 13 + (i - 1) / 2, (i - 1) % 2 * 30);  // 13:00Z..22:00Z
    harness::ProcessResult r =
        History({"--db=" + db, "record", WriteRun(200 + i, i >= 20 ? 130.0 : 100.0, rng), "--commit=" + Commit(i),
                 "--date=" + date});
    ASSERT_EQ(r.exit_code, 0) << date << "\n" << r.stderr_text;
  }
  harness::ProcessResult d = History({"--db=" + db, "detect", "--metric=real_time"});
  EXPECT_EQ(d.exit_code, 3) << d.stdout_text << d.stderr_text;
  EXPECT_NE(d.stdout_text.find("at run 20 of 30: commit " + Commit(20) + ", 2026-12-02T00:30:00Z"), std::string::npos)
      << d.stdout_text;
  EXPECT_NE(d.stdout_text.find("REGRESSION (newest segment)"), std::string::npos) << d.stdout_text;
}

TEST(History, InvalidDatesAreRefused) {
  const std::string db = FreshDb("dates.db");
  history::SplitMix64 rng(1);
  const std::string run = WriteRun(300, 100.0, rng);
  for (const char* date : {"2026-13-45", "2026-02-30T25:61:61Z", "0000-00-00", "2026-02-29", "2026-11-30T12:00:00"}) {
    harness::ProcessResult r = History({"--db=" + db, "record", run, "--commit=" + Commit(1), std::string("--date=") + date});
    EXPECT_EQ(r.exit_code, 2) << date << "\n" << r.stdout_text;
    EXPECT_NE(r.stderr_text.find(absl::StrCat("--date='", date, "' is not a valid date")), std::string::npos)
        << r.stderr_text;
    EXPECT_NE(r.stderr_text.find("allowed: RFC 3339"), std::string::npos) << r.stderr_text;
  }
  EXPECT_FALSE(std::filesystem::exists(db));  // nothing recorded, so no file either
  harness::ProcessResult leap = History({"--db=" + db, "record", run, "--commit=" + Commit(1), "--date=2024-02-29"});
  EXPECT_EQ(leap.exit_code, 0) << leap.stderr_text;
  EXPECT_NE(leap.stdout_text.find("date 2024-02-29T00:00:00Z"), std::string::npos) << leap.stdout_text;
}

// One run recorded as HEAD, its short id, its id in upper case, and with +00:00 for Z: one run.
// HEAD and the short id resolve in --repo; where they do not resolve, they are refused.
TEST(History, TheSameRunSpelledAnotherWayIsRefused) {
  const std::string repo = Tmp("commits_repo");
  Sh(absl::StrCat("rm -rf '", repo, "' && mkdir -p '", repo, "' && cd '", repo,
                  "' && git init -q && git config user.email t@example.com && git config user.name t && "
                  "git commit -q --allow-empty -m one"));
  const std::string sha = Sh(absl::StrCat("git -C '", repo, "' rev-parse HEAD"));
  ASSERT_EQ(sha.size(), 40u);
  std::string upper = sha;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string db = FreshDb("same.db");
  history::SplitMix64 rng(3);
  const std::string run = WriteRun(400, 100.0, rng);
  harness::ProcessResult first =
      History({"--db=" + db, "--repo=" + repo, "record", run, "--commit=HEAD", "--date=2026-12-01T00:00:00Z"});
  ASSERT_EQ(first.exit_code, 0) << first.stderr_text;
  EXPECT_NE(first.stdout_text.find("commit " + sha), std::string::npos) << first.stdout_text;  // resolved, stored in full
  const std::vector<std::vector<std::string>> again = {
      {"--commit=HEAD", "--date=2026-12-01T00:00:00Z"},
      {"--commit=" + sha.substr(0, 7), "--date=2026-12-01T00:00:00Z"},
      {"--commit=" + upper, "--date=2026-12-01T00:00:00Z"},
      {"--commit=" + sha, "--date=2026-12-01T00:00:00+00:00"},
      {"--commit=" + sha, "--date=2026-11-30T18:00:00-06:00"},
  };
  for (const std::vector<std::string>& flags : again) {
    std::vector<std::string> args = {"--db=" + db, "--repo=" + repo, "record", run};
    args.insert(args.end(), flags.begin(), flags.end());
    harness::ProcessResult r = History(args);
    EXPECT_EQ(r.exit_code, 2) << flags[0] << " " << flags[1] << "\n" << r.stdout_text;
    EXPECT_NE(r.stderr_text.find("already holds this run of commit " + sha + " dated 2026-12-01T00:00:00Z"),
              std::string::npos)
        << r.stderr_text;
  }
  harness::ProcessResult list = History({"--db=" + db, "list"});
  EXPECT_NE(list.stdout_text.find("1 runs"), std::string::npos) << list.stdout_text;
  // Without a repository that knows it, a short id is not a commit.
  harness::ProcessResult lost =
      History({"--db=" + db, "--repo=" + Tmp(""), "record", run, "--commit=" + sha.substr(0, 7)});
  EXPECT_EQ(lost.exit_code, 2);
  EXPECT_NE(lost.stderr_text.find("--commit '" + sha.substr(0, 7) + "' is not a full commit id (40 hex digits)"),
            std::string::npos)
      << lost.stderr_text;
}

// Another program's SQLite file (a table of its own named runs): list, detect and record refuse
// it, and its bytes are as they were (before, list turned it into WAL, set user_version and added
// tables, then failed on "no such column").
TEST(History, AFileThatIsNotOursIsRefusedUnchanged) {
  const std::string foreign = FreshDb("foreign.db");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(foreign.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE runs (name TEXT); INSERT INTO runs VALUES ('mine');", nullptr, nullptr,
                         nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  const std::string before = Bytes(foreign);
  history::SplitMix64 rng(5);
  const std::string run = WriteRun(500, 100.0, rng);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--db=" + foreign, "list"}, {"--db=" + foreign, "detect"},
        {"--db=" + foreign, "record", run, "--commit=" + Commit(1)}}) {
    harness::ProcessResult r = History(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << "\n" << r.stdout_text;
    EXPECT_NE(r.stderr_text.find("'" + foreign + "' is not a tools/history database"), std::string::npos)
        << r.stderr_text;
  }
  EXPECT_EQ(Bytes(foreign), before);
  EXPECT_FALSE(std::filesystem::exists(foreign + "-wal"));

  // A 0-byte file is not a database either, for reading or recording; it stays 0 bytes.
  const std::string empty = FreshDb("empty.db");
  std::ofstream(empty).close();
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--db=" + empty, "list"},
                                               {"--db=" + empty, "record", run, "--commit=" + Commit(1)}}) {
    harness::ProcessResult r = History(args);
    EXPECT_EQ(r.exit_code, 2) << args[1];
    EXPECT_NE(r.stderr_text.find("it is empty (0 bytes)"), std::string::npos) << r.stderr_text;
  }
  EXPECT_EQ(std::filesystem::file_size(empty), 0u);
}

// A record that fails at a new path leaves no file (before: an empty database).
TEST(History, AFailedFirstRecordLeavesNoFile) {
  const std::string db = FreshDb("never.db");
  const std::string junk = Tmp("never.json");
  std::ofstream(junk) << "{\"benchmarks\": [";
  EXPECT_EQ(History({"--db=" + db, "record", junk}).exit_code, 2);
  history::SplitMix64 rng(6);
  EXPECT_EQ(History({"--db=" + db, "record", WriteRun(600, 100.0, rng)}).exit_code, 2);  // build.commit "ignored"
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    EXPECT_FALSE(std::filesystem::exists(db + suffix)) << db + suffix;
  }
}

// A writer holds the write lock; list and detect answer at once (before: 30 s, then "database is
// locked").
TEST(History, ReadersDoNotWaitForAWriter) {
  const std::string db = FreshDb("locked.db");
  history::SplitMix64 rng(8);
  for (int i = 1; i <= 3; ++i) {
    ASSERT_EQ(History({"--db=" + db, "record", WriteRun(700 + i, 100.0, rng), "--commit=" + Commit(i),
                       absl::StrFormat("--date=2026-11-%02d", i)})
                  .exit_code,
              0);
  }
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "BEGIN IMMEDIATE; DELETE FROM results;", nullptr, nullptr, nullptr), SQLITE_OK);
  const auto t0 = std::chrono::steady_clock::now();
  harness::ProcessResult list = History({"--db=" + db, "list"});
  harness::ProcessResult detect = History({"--db=" + db, "detect"});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(writer);
  EXPECT_EQ(list.exit_code, 0) << list.stderr_text;
  EXPECT_NE(list.stdout_text.find("3 runs"), std::string::npos) << list.stdout_text;  // the last committed state
  EXPECT_EQ(detect.exit_code, 0) << detect.stderr_text;
  EXPECT_LT(took, 10.0) << "list and detect waited for the writer";
}

// NaN and Infinity are named as such: a NaN time refuses the run; an Infinity counter is left
// out with a warning naming it, and the rest is recorded.
TEST(History, NaNAndInfinityAreNamed) {
  const std::string db = FreshDb("nan.db");
  nlohmann::json j = {{"context", testdata::BenchContext(testdata::FakeRunContext(), "ignored")}};
  j["benchmarks"] = {{{"name", "BM_Step"}, {"run_type", "iteration"}, {"repetition_index", 0}, {"iterations", 1},
                      {"real_time", 1.5}, {"cpu_time", 1.0}, {"time_unit", "ms"}, {"bytes_per_second", 7.0}}};
  const std::string text = j.dump();
  auto replaced = [&text](const std::string& from, const std::string& to) {
    std::string t = text;
    const size_t at = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? t : t.replace(at, from.size(), to);
  };
  const std::string nan_file = Tmp("nan_time.json");
  std::ofstream(nan_file) << replaced("\"real_time\":1.5", "\"real_time\":NaN");
  harness::ProcessResult nan = History({"--db=" + db, "record", nan_file, "--commit=" + Commit(1)});
  EXPECT_EQ(nan.exit_code, 2);
  EXPECT_NE(nan.stderr_text.find("real_time is NaN, not a time"), std::string::npos) << nan.stderr_text;
  EXPECT_EQ(nan.stderr_text.find("string"), std::string::npos) << nan.stderr_text;

  const std::string inf_file = Tmp("inf_counter.json");
  std::ofstream(inf_file) << replaced("\"bytes_per_second\":7.0", "\"bytes_per_second\":Infinity");
  harness::ProcessResult inf = History({"--db=" + db, "record", inf_file, "--commit=" + Commit(1)});
  EXPECT_EQ(inf.exit_code, 0) << inf.stderr_text;
  EXPECT_NE(inf.stderr_text.find("warning: '" + inf_file + "': BM_Step repetition 0: counter bytes_per_second is Infinity"),
            std::string::npos)
      << inf.stderr_text;
  EXPECT_NE(inf.stdout_text.find("left out 1 NaN or Infinity counter values"), std::string::npos) << inf.stdout_text;
  harness::ProcessResult list = History({"--db=" + db, "list"});
  EXPECT_EQ(list.stdout_text.find("bytes_per_second"), std::string::npos) << list.stdout_text;
  EXPECT_NE(list.stdout_text.find("real_time"), std::string::npos) << list.stdout_text;
}

// --permutations is bounded: 2e9 ran for about 40 minutes; too few can never reach the level.
TEST(History, PermutationsAreBounded) {
  const std::string db = FreshDb("perm.db");
  history::SplitMix64 rng(9);
  ASSERT_EQ(History({"--db=" + db, "record", WriteRun(800, 100.0, rng), "--commit=" + Commit(1), "--date=2026-11-01"})
                .exit_code,
            0);
  for (const char* n : {"2000000000", "100001", "99", "0", "-5"}) {
    const auto t0 = std::chrono::steady_clock::now();
    harness::ProcessResult r = History({"--db=" + db, "detect", std::string("--permutations=") + n});
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
    EXPECT_EQ(r.exit_code, 2) << n;
    EXPECT_NE(r.stderr_text.find(absl::StrCat("--permutations=", n, " is out of range: allowed 100 to 100000")),
              std::string::npos)
        << r.stderr_text;
  }
  EXPECT_EQ(History({"--db=" + db, "detect", "--permutations=100"}).exit_code, 0);
  harness::ProcessResult finer = History({"--db=" + db, "detect", "--significance=0.001"});
  EXPECT_EQ(finer.exit_code, 2);  // the default 499 cannot give p < 0.001
  EXPECT_NE(finer.stderr_text.find("allowed 1000 to 100000"), std::string::npos) << finer.stderr_text;
}

TEST(History, BadInputIsExit2WithTheReason) {
  const std::string db = Tmp("bad.db");
  std::remove(db.c_str());
  const std::string junk = Tmp("junk.json");
  std::ofstream(junk) << "{\"benchmarks\": [1, 2";
  harness::ProcessResult r = History({"--db=" + db, "record", junk});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.stderr_text.find(junk), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("malformed JSON"), std::string::npos) << r.stderr_text;

  EXPECT_EQ(History({"--db=" + Tmp("missing.db"), "detect"}).exit_code, 2);
  EXPECT_EQ(History({"--db=" + db, "frobnicate"}).exit_code, 2);
  EXPECT_EQ(History({"record", junk}).exit_code, 2);  // no --db
  EXPECT_EQ(History({"--db=" + db, "record", junk, "--date=last week"}).exit_code, 2);
  harness::ProcessResult help = History({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.stdout_text.find("E-divisive"), std::string::npos);
}

}  // namespace
