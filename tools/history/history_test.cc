// //tools:history end to end: 30 recorded runs with a +15% step at commit 20 are flagged by
// detect (exit 3, the commit named), a steady history is not, and bad input is exit 2 with the
// file and the reason.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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
