// The history database: what is recorded comes back, a run recorded twice or a foreign file is
// refused, a writer killed mid-record leaves whole runs only, and writers may record at once.
#include "tools/history/history_db.h"

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace history {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = absl::StrCat(dir ? dir : "/tmp", "/", name);
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  return path;
}

RunRecord MakeRun(const std::string& commit, const std::string& date, int rows, double value = 1.0) {
  RunRecord r;
  r.machine_hash = "deadbeef";
  r.machine_description = "test machine";
  r.machine_fields_json = "{}";
  r.commit = commit;
  r.date = date;
  r.source = "test.json";
  r.context_json = "{}";
  for (int i = 0; i < rows; ++i) r.rows.push_back({absl::StrCat("BM_Case/", i % 5), "real_time", i / 5, value + i});
  return r;
}

int64_t Count(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql;
  int64_t n = -1;
  if (sqlite3_step(s) == SQLITE_ROW) n = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return n;
}

TEST(HistoryDb, RecordsListsAndLoadsInDateOrder) {
  const std::string path = TempPath("a.db");
  auto db = HistoryDb::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE((*db)->Record(MakeRun("c2", "2026-11-02T00:00:00Z", 10, 5.0)).ok());
  ASSERT_TRUE((*db)->Record(MakeRun("c1", "2026-11-01T00:00:00Z", 10, 1.0)).ok());
  auto series = (*db)->ListSeries();
  ASSERT_TRUE(series.ok()) << series.status();
  ASSERT_EQ(series->size(), 5u);
  EXPECT_EQ((*series)[0].case_name, "BM_Case/0");
  EXPECT_EQ((*series)[0].runs, 2);
  auto points = (*db)->LoadSeries("deadbeef", "BM_Case/0", "real_time");
  ASSERT_TRUE(points.ok()) << points.status();
  ASSERT_EQ(points->size(), 2u);
  EXPECT_EQ((*points)[0].commit, "c1");  // the older date first, whatever the order recorded
  EXPECT_EQ((*points)[1].commit, "c2");
  EXPECT_EQ((*points)[0].values, (std::vector<double>{1.0, 6.0}));
  EXPECT_EQ(*(*db)->IntegrityCheck(), "ok");
  EXPECT_EQ(Count(path, "PRAGMA user_version"), kSchemaVersion);
}

TEST(HistoryDb, RefusesTheSameRunTwice) {
  auto db = HistoryDb::Open(TempPath("b.db"));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->Record(MakeRun("c1", "2026-11-01", 3)).ok());
  auto again = (*db)->Record(MakeRun("c1", "2026-11-01", 3));
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(again.status().message().find("commit c1 dated 2026-11-01"), std::string::npos) << again.status();
  EXPECT_TRUE((*db)->Record(MakeRun("c1", "2026-11-02", 3)).ok());  // the same commit, measured again
}

TEST(HistoryDb, RefusesAFileThatIsNotADatabaseAndANewerSchema) {
  const std::string junk = TempPath("junk.db");
  std::ofstream(junk) << std::string(4096, 'x');
  auto bad = HistoryDb::Open(junk);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(junk), std::string::npos) << bad.status();

  const std::string newer = TempPath("newer.db");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(newer.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto refused = HistoryDb::Open(newer);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("schema version 99"), std::string::npos) << refused.status();
}

// A child records runs of 2000 rows each and reports every commit on a pipe; the parent kills it
// with SIGKILL after a few commits, in the middle of the next. Every reported run must be there
// with all its rows, and no run may be there with only some.
TEST(HistoryDb, AKilledWriterLosesNoCommittedRunAndLeavesNoHalfRun) {
  const std::string path = TempPath("killed.db");
  ASSERT_TRUE(HistoryDb::Open(path).ok());
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    auto db = HistoryDb::Open(path);
    if (!db.ok()) _exit(10);
    for (int i = 0; i < 100000; ++i) {  // bounded; the parent kills it long before
      if (!(*db)->Record(MakeRun(absl::StrCat("c", i), "2026-11-01", 2000)).ok()) _exit(11);
      if (write(fds[1], &i, sizeof i) != sizeof i) _exit(12);
    }
    _exit(0);
  }
  close(fds[1]);
  int committed = -1, got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (committed < 4 && std::chrono::steady_clock::now() < deadline && read(fds[0], &got, sizeof got) == sizeof got) {
    committed = got;
  }
  usleep(3000);  // into the next run's transaction
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer ended on its own with status " << status;
  while (read(fds[0], &got, sizeof got) == sizeof got) committed = got;  // acks already in the pipe
  close(fds[0]);
  ASSERT_GE(committed, 4);

  auto db = HistoryDb::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ(*(*db)->IntegrityCheck(), "ok");
  const int64_t runs = Count(path, "SELECT COUNT(*) FROM runs");
  EXPECT_GE(runs, committed + 1);  // every acknowledged run (0..committed) is there
  EXPECT_LE(runs, committed + 2);  // and at most the one whose ack the kill cut off
  EXPECT_EQ(Count(path, "SELECT COUNT(*) FROM (SELECT run_id FROM results GROUP BY run_id HAVING COUNT(*) != 2000)"), 0);
  EXPECT_EQ(Count(path, "SELECT COUNT(*) FROM runs WHERE id NOT IN (SELECT run_id FROM results)"), 0);
  EXPECT_EQ(Count(path, absl::StrCat("SELECT COUNT(*) FROM runs WHERE commit_sha = 'c", committed, "'")), 1);
}

TEST(HistoryDb, TwoWritersRecordAtOnce) {
  const std::string path = TempPath("two.db");
  ASSERT_TRUE(HistoryDb::Open(path).ok());
  pid_t pids[2];
  for (int w = 0; w < 2; ++w) {
    pids[w] = fork();
    ASSERT_GE(pids[w], 0);
    if (pids[w] == 0) {
      auto db = HistoryDb::Open(path);
      if (!db.ok()) _exit(10);
      for (int i = 0; i < 25; ++i) {
        if (!(*db)->Record(MakeRun(absl::StrCat("w", w, "-", i), "2026-11-01", 200)).ok()) _exit(11);
      }
      _exit(0);
    }
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer status " << status;
  }
  EXPECT_EQ(Count(path, "SELECT COUNT(*) FROM runs"), 50);
  EXPECT_EQ(Count(path, "SELECT COUNT(*) FROM results"), 50 * 200);
}

}  // namespace
}  // namespace history
