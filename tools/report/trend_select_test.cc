// --history on a database of more series than a page should draw: at most --max_trends charts
// (default 50), the first by machine and case, among those --history_case selects; the page and
// the notes say how many were left out and how to see them.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "tools/history/history_db.h"
#include "tools/report/report.h"
#include "tools/report/trend_chart.h"

namespace report {
namespace {

// One run of `cases` cases (BM_Case/000 ...), each a series of real_time with one point.
std::string MakeDb(int cases) {
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string path = absl::StrCat(t != nullptr ? t : "/tmp", "/many.", getpid(), ".", cases, ".db");
  std::remove(path.c_str());
  auto db = history::HistoryDb::Open(path);
  EXPECT_TRUE(db.ok()) << db.status();
  history::RunRecord r;
  r.machine_hash = "0badcafe";
  r.machine_description = "test machine";
  r.machine_fields_json = "{}";
  r.commit = std::string(40, 'a');
  r.date = "2026-11-10T00:00:00Z";
  r.source = "test";
  r.context_json = "{}";
  for (int c = 0; c < cases; ++c)
    r.rows.push_back({absl::StrFormat("BM_Case/%03d", c), "real_time", 0, 1e-3});
  EXPECT_TRUE((*db)->Record(r).ok());
  return path;
}

TEST(TrendSelect, DefaultCapDrawsFiftyAndSaysWhatWasLeftOut) {
  const std::string db = MakeDb(kDefaultMaxTrends + 12);
  auto set = LoadTrends(db, "real_time");
  ASSERT_TRUE(set.ok()) << set.status();
  ASSERT_EQ(set->series.size(), static_cast<size_t>(kDefaultMaxTrends));
  EXPECT_EQ(set->matching, static_cast<size_t>(kDefaultMaxTrends + 12));
  EXPECT_EQ(set->series.front().case_name, "BM_Case/000");
  EXPECT_EQ(set->series.back().case_name, absl::StrFormat("BM_Case/%03d", kDefaultMaxTrends - 1));

  ReportInputs in;
  in.trends = set->series;
  in.trends_matching = set->matching;
  in.history_path = db;
  Report r = BuildReport(in);
  EXPECT_TRUE(r.files.count(absl::StrCat("trend_", kDefaultMaxTrends, ".svg")));
  EXPECT_FALSE(r.files.count(absl::StrCat("trend_", kDefaultMaxTrends + 1, ".svg")));
  const std::string want = absl::StrCat(
      "drew ", kDefaultMaxTrends, " of the ", kDefaultMaxTrends + 12, " series of real_time (the first ",
      kDefaultMaxTrends, " by machine and case; --max_trends=", kDefaultMaxTrends, "); 12 left out");
  bool noted = false;
  for (const std::string& n : r.notes) noted |= n.find(want) != std::string::npos;
  EXPECT_TRUE(noted) << "no note '" << want << "'";
  const std::string& html = r.files.at("index.html");
  EXPECT_NE(html.find("id=\"history-left-out\""), std::string::npos);
  EXPECT_NE(html.find(want), std::string::npos);
  EXPECT_NE(html.find(absl::StrCat("--db=", db, " list")), std::string::npos) << "says how to list them";
}

TEST(TrendSelect, CaseRegexAndASmallerCap) {
  const std::string db = MakeDb(30);
  auto set = LoadTrends(db, "real_time", TrendSelection{"/01[0-9]$", 4});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->matching, 10u);
  ASSERT_EQ(set->series.size(), 4u);
  EXPECT_EQ(set->series[0].case_name, "BM_Case/010");

  // All drawn: no note.
  set = LoadTrends(db, "real_time", TrendSelection{"", 30});
  ASSERT_TRUE(set.ok()) << set.status();
  ReportInputs in;
  in.trends = set->series;
  in.trends_matching = set->matching;
  in.history_path = db;
  EXPECT_EQ(TrendsLeftOut(in), "");
}

TEST(TrendSelect, BadOrEmptySelection) {
  const std::string db = MakeDb(3);
  auto set = LoadTrends(db, "real_time", TrendSelection{"(", 5});
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("--history_case='(' is not a valid regular expression"),
            std::string::npos)
      << set.status();
  set = LoadTrends(db, "real_time", TrendSelection{"nothing", 5});
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.status().message().find("and a case matching --history_case='nothing'"), std::string::npos)
      << set.status();
}

}  // namespace
}  // namespace report
