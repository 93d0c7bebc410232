// The history database: what is recorded comes back in time order, a run recorded twice (however
// its commit and date are spelled) or a file that is not ours is refused without being written,
// a new file appears with its first run or not at all, a writer killed mid-record leaves whole
// runs only, writers may record at once and readers never wait for them.
#include "tools/history/history_db.h"

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
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

std::string Bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool Exists(const std::string& path) { return std::filesystem::exists(path); }

void Sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* msg = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg), SQLITE_OK) << (msg ? msg : "") << "\n" << sql;
  sqlite3_free(msg);
  sqlite3_close(db);
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

// Text order would put the -12:00 run (2026-12-02T00:30Z) first: it sorts by instant, and comes
// back in the stored UTC spelling.
TEST(HistoryDb, OrdersASeriesByInstantNotByText) {
  const std::string path = TempPath("zones.db");
  auto db = HistoryDb::Open(path);
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE((*db)->Record(MakeRun("late", "2026-12-01T12:30:00-12:00", 5, 3.0)).ok());
  ASSERT_TRUE((*db)->Record(MakeRun("early", "2026-12-01T13:00:00Z", 5, 1.0)).ok());
  ASSERT_TRUE((*db)->Record(MakeRun("middle", "2026-12-01T18:00:00.5+05:00", 5, 2.0)).ok());  // 13:00:00.5Z
  auto points = (*db)->LoadSeries("deadbeef", "BM_Case/0", "real_time");
  ASSERT_TRUE(points.ok()) << points.status();
  ASSERT_EQ(points->size(), 3u);
  EXPECT_EQ((*points)[0].commit, "early");
  EXPECT_EQ((*points)[1].commit, "middle");
  EXPECT_EQ((*points)[2].commit, "late");
  EXPECT_EQ((*points)[1].date, "2026-12-01T13:00:00.5Z");
  EXPECT_EQ((*points)[2].date, "2026-12-02T00:30:00Z");
  EXPECT_EQ(Count(path, "SELECT COUNT(*) FROM runs WHERE date = '2026-12-02T00:30:00Z'"), 1);  // stored in UTC
  EXPECT_EQ((*db)->Record(MakeRun("bad", "2026-13-45", 5)).status().code(), absl::StatusCode::kInvalidArgument);
}

// A file written before dates were checked: its spellings are read as their instants, and a date
// that is none is an error naming the run, not a silent misorder.
TEST(HistoryDb, ReadsTheDatesOfOlderFiles) {
  const std::string path = TempPath("older.db");
  ASSERT_TRUE(HistoryDb::Open(path).ok());
  Sql(path,
      "INSERT INTO machines VALUES (1, 'deadbeef', 'm', '{}');"
      "INSERT INTO runs VALUES (1, 1, 'c3', '2026-11-30T12:00:00+01:00', 's', '{}', 'x');"  // 11:00Z
      "INSERT INTO runs VALUES (2, 1, 'c1', '2026-11-30T10:00Z', 's', '{}', 'x');"
      "INSERT INTO runs VALUES (3, 1, 'c2', '2026-11-30T10:30:00', 's', '{}', 'x');"
      "INSERT INTO results VALUES (1, 'BM', 'real_time', 0, 3), (2, 'BM', 'real_time', 0, 1),"
      "  (3, 'BM', 'real_time', 0, 2);");
  {
    auto db = HistoryDb::Open(path, Access::kRead);
    ASSERT_TRUE(db.ok()) << db.status();
    auto points = (*db)->LoadSeries("deadbeef", "BM", "real_time");
    ASSERT_TRUE(points.ok()) << points.status();
    ASSERT_EQ(points->size(), 3u);
    EXPECT_EQ((*points)[0].commit, "c1");
    EXPECT_EQ((*points)[1].commit, "c2");
    EXPECT_EQ((*points)[2].commit, "c3");
    // The same run spelled the old way is still the same run.
    auto again = HistoryDb::Open(path);
    ASSERT_TRUE(again.ok());
    RunRecord r = MakeRun("C3", "2026-11-30T11:00:00Z", 0);
    r.rows = {{"BM", "real_time", 0, 3}};
    EXPECT_EQ((*again)->Record(r).status().code(), absl::StatusCode::kAlreadyExists);
  }
  Sql(path,
      "INSERT INTO runs VALUES (4, 1, 'c4', '2026-13-45', 's', '{}', 'x');"
      "INSERT INTO results VALUES (4, 'BM', 'real_time', 0, 4);");
  auto db = HistoryDb::Open(path, Access::kRead);
  ASSERT_TRUE(db.ok()) << db.status();
  auto broken = (*db)->LoadSeries("deadbeef", "BM", "real_time");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("run 4 (commit c4) has the date '2026-13-45'"), std::string::npos)
      << broken.status();
}

// The same commit, machine and instant is one run, whatever the case of the commit or the
// spelling of the date; the message says whether the results are the same.
TEST(HistoryDb, RefusesTheSameRunSpelledDifferently) {
  const std::string commit = "0123456789abcdef0123456789abcdef01234567";
  auto db = HistoryDb::Open(TempPath("spelled.db"));
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->Record(MakeRun(commit, "2026-12-01T00:00:00Z", 3)).ok());
  for (const char* date : {"2026-12-01T00:00:00Z", "2026-12-01T00:00:00+00:00", "2026-12-01", "2026-11-30T12:00:00-12:00",
                           "2026-12-01T00:00:00.000Z"}) {
    auto again = (*db)->Record(MakeRun(commit, date, 3));
    EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists) << date;
    EXPECT_NE(again.status().message().find("already holds this run of commit " + commit), std::string::npos)
        << again.status();
  }
  std::string upper = commit;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ((*db)->Record(MakeRun(upper, "2026-12-01T00:00:00Z", 3)).status().code(),
            absl::StatusCode::kAlreadyExists);
  auto other = (*db)->Record(MakeRun(commit, "2026-12-01T00:00:00+00:00", 3, 7.0));
  EXPECT_EQ(other.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(other.status().message().find("a run with other results"), std::string::npos) << other.status();
  EXPECT_TRUE((*db)->Record(MakeRun(commit, "2026-12-01T00:00:01Z", 3)).ok());  // measured again, a second later
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
  for (Access access : {Access::kRead, Access::kWrite}) {
    auto bad = HistoryDb::Open(junk, access);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.status().message().find(junk), std::string::npos) << bad.status();
    EXPECT_NE(bad.status().message().find("not an SQLite file"), std::string::npos) << bad.status();
  }
  EXPECT_EQ(Bytes(junk), std::string(4096, 'x'));

  const std::string newer = TempPath("newer.db");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(newer.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  auto refused = HistoryDb::Open(newer);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("schema version 99"), std::string::npos) << refused.status();
}

// Another program's SQLite file (rollback journal, a table of its own named runs): refused for
// reading and for writing, its bytes unchanged, no WAL or journal made beside it.
TEST(HistoryDb, RefusesAForeignSqliteFileWithoutWritingIt) {
  const std::string path = TempPath("foreign.db");
  Sql(path, "CREATE TABLE runs (x); INSERT INTO runs VALUES (1);");
  const std::string before = Bytes(path);
  ASSERT_FALSE(before.empty());
  for (Access access : {Access::kRead, Access::kWrite}) {
    auto db = HistoryDb::Open(path, access);
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(db.status().message().find("is not a tools/history database"), std::string::npos) << db.status();
    EXPECT_NE(db.status().message().find("nothing written to it"), std::string::npos) << db.status();
  }
  auto rec = HistoryDb::RecordAt(path, MakeRun("c1", "2026-11-01", 3));
  EXPECT_FALSE(rec.ok());
  EXPECT_EQ(Bytes(path), before);  // a checksum of every byte
  EXPECT_FALSE(Exists(path + "-wal"));
  EXPECT_FALSE(Exists(path + "-journal"));
  EXPECT_EQ(Count(path, "PRAGMA user_version"), 0);

  // Ours in name only: user_version 1 but other tables.
  const std::string imposter = TempPath("imposter.db");
  Sql(imposter, "PRAGMA user_version=1; CREATE TABLE machines (id); CREATE TABLE runs (id);");
  const std::string imposter_before = Bytes(imposter);
  auto refused = HistoryDb::Open(imposter, Access::kWrite);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("its table 'machines' has no column 'key_hash'"), std::string::npos)
      << refused.status();
  EXPECT_EQ(Bytes(imposter), imposter_before);
}

// A 0-byte file or a folder is not a database: refused, left as it was (SQLite would otherwise
// turn the empty file into a database).
TEST(HistoryDb, RefusesAnEmptyFileAndAFolder) {
  const std::string empty = TempPath("empty.db");
  std::ofstream(empty).close();
  for (Access access : {Access::kRead, Access::kWrite}) {
    auto db = HistoryDb::Open(empty, access);
    ASSERT_FALSE(db.ok());
    EXPECT_NE(db.status().message().find("it is empty (0 bytes)"), std::string::npos) << db.status();
  }
  EXPECT_FALSE(HistoryDb::RecordAt(empty, MakeRun("c1", "2026-11-01", 3)).ok());
  EXPECT_EQ(std::filesystem::file_size(empty), 0u);
  const char* dir = std::getenv("TEST_TMPDIR");
  auto folder = HistoryDb::Open(dir ? dir : "/tmp", Access::kRead);
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.status().message().find("it is a folder"), std::string::npos) << folder.status();
  auto missing = HistoryDb::Open(TempPath("missing.db"), Access::kRead);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(Exists(TempPath("missing.db")));
}

// RecordAt at a new path: the file appears with its run, or (the run refused) not at all, and no
// temporary file is left either way.
TEST(HistoryDb, ANewFileAppearsWithItsFirstRunOrNotAtAll) {
  const std::string path = TempPath("fresh.db");
  auto bad = HistoryDb::RecordAt(path, MakeRun("c1", "2026-02-30", 3));
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(Exists(path));
  auto id = HistoryDb::RecordAt(path, MakeRun("c1", "2026-11-01", 3));
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(*id, 1);
  EXPECT_EQ(Count(path, "SELECT COUNT(*) FROM results"), 3);
  EXPECT_EQ(Count(path, "PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(Count(path, "SELECT COUNT(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
  auto second = HistoryDb::RecordAt(path, MakeRun("c2", "2026-11-02", 3));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(*second, 2);
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  for (const auto& e : std::filesystem::directory_iterator(folder)) {
    EXPECT_EQ(e.path().filename().string().find(".creating."), std::string::npos) << e.path();
  }
}

// A writer holds the write lock (an open IMMEDIATE transaction): a reader opens the file, lists
// and loads its series at once, without waiting for it (before, opening took a write lock and
// waited out busy_timeout, 30 s, then failed with "database is locked").
TEST(HistoryDb, AReaderNeverWaitsForAWriter) {
  const std::string path = TempPath("busy.db");
  {
    auto db = HistoryDb::Open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Record(MakeRun("c1", "2026-11-01", 10)).ok());
  }
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "BEGIN IMMEDIATE; INSERT INTO machines (key_hash, description, fields_json) "
                                 "VALUES ('other', 'o', '{}');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  const auto t0 = std::chrono::steady_clock::now();
  auto reader = HistoryDb::Open(path, Access::kRead, /*busy_timeout_ms=*/20000);
  ASSERT_TRUE(reader.ok()) << reader.status();
  auto series = (*reader)->ListSeries();
  ASSERT_TRUE(series.ok()) << series.status();
  EXPECT_EQ(series->size(), 5u);
  auto points = (*reader)->LoadSeries("deadbeef", "BM_Case/0", "real_time");
  ASSERT_TRUE(points.ok()) << points.status();
  EXPECT_EQ(points->size(), 1u);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(waited, 5.0) << "the reader waited for the writer";
  // A reader writes nothing.
  EXPECT_FALSE((*reader)->Record(MakeRun("c9", "2026-11-09", 1)).ok());
  sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(writer);
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
