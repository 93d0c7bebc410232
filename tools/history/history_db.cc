// SQLite storage of benchmark runs (history_db.h).
#include "tools/history/history_db.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <tuple>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "sysinfo/utc_now.h"
#include "tools/history/rfc3339.h"

namespace history {
namespace {

constexpr char kSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS machines (
  id INTEGER PRIMARY KEY,
  key_hash TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL,
  fields_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  machine_id INTEGER NOT NULL REFERENCES machines(id),
  commit_sha TEXT NOT NULL,
  date TEXT NOT NULL,
  source TEXT NOT NULL,
  context_json TEXT NOT NULL,
  recorded_at TEXT NOT NULL,
  UNIQUE (machine_id, commit_sha, date)
);
CREATE TABLE IF NOT EXISTS results (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  case_name TEXT NOT NULL,
  metric TEXT NOT NULL,
  repetition INTEGER NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (run_id, case_name, metric, repetition)
);
CREATE INDEX IF NOT EXISTS results_series ON results (case_name, metric);
)sql";

// A prepared statement, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &s_, nullptr); }
  ~Stmt() { sqlite3_finalize(s_); }
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return s_; }
  void Text(int i, const std::string& v) { sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT); }
  void Int(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }
  void Real(int i, double v) { sqlite3_bind_double(s_, i, v); }
  int Step() { return sqlite3_step(s_); }
  void Reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  std::string ColText(int i) {
    const unsigned char* t = sqlite3_column_text(s_, i);
    return t == nullptr ? "" : reinterpret_cast<const char*>(t);
  }

 private:
  sqlite3_stmt* s_ = nullptr;
  int rc_ = SQLITE_ERROR;
};

// The tables and columns a database of ours has (kSchema); any file without them is not ours.
struct TableColumns {
  const char* table;
  std::vector<const char*> columns;
};
const std::vector<TableColumns>& OurTables() {
  static const auto* t = new std::vector<TableColumns>{
      {"machines", {"id", "key_hash", "description", "fields_json"}},
      {"runs", {"id", "machine_id", "commit_sha", "date", "source", "context_json", "recorded_at"}},
      {"results", {"run_id", "case_name", "metric", "repetition", "value"}},
  };
  return *t;
}

absl::Status NotOurs(const std::string& path, const std::string& why) {
  return absl::FailedPreconditionError(absl::StrCat(
      "'", path, "' is not a tools/history database: ", why,
      "; refused, nothing written to it (only `history record` makes a database, at a path where nothing is)"));
}

// Reads the schema of an open (read-only) connection: ours, of a version this code reads?
absl::Status CheckSchema(sqlite3* db, const std::string& path) {
  Stmt v(db, "PRAGMA user_version");
  if (!v.ok() || v.Step() != SQLITE_ROW) return NotOurs(path, absl::StrCat("SQLite cannot read it (", sqlite3_errmsg(db), ")"));
  const int version = sqlite3_column_int(v.get(), 0);
  if (version > kSchemaVersion) {
    return absl::FailedPreconditionError(absl::StrCat("history database '", path, "' has schema version ", version,
                                                      "; this tools/history reads up to ", kSchemaVersion,
                                                      ": use a newer checkout"));
  }
  if (version < 1) return NotOurs(path, absl::StrCat("an SQLite file of schema version ", version, " (ours: 1)"));
  for (const TableColumns& t : OurTables()) {
    Stmt c(db, "SELECT name FROM pragma_table_info(?)");
    if (!c.ok()) return NotOurs(path, absl::StrCat("SQLite cannot read its tables (", sqlite3_errmsg(db), ")"));
    c.Text(1, t.table);
    std::vector<std::string> have;
    while (c.Step() == SQLITE_ROW) have.push_back(c.ColText(0));
    if (have.empty()) return NotOurs(path, absl::StrCat("it has no table '", t.table, "'"));
    for (const char* col : t.columns) {
      if (std::find(have.begin(), have.end(), col) == have.end()) {
        return NotOurs(path, absl::StrCat("its table '", t.table, "' has no column '", col, "'"));
      }
    }
  }
  return absl::OkStatus();
}

// Is the file at `path` a database of ours? Reads it only: its header, then its schema through a
// read-only connection. NotFound when nothing is at `path`.
absl::Status CheckIsOurs(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return absl::NotFoundError(absl::StrCat("no history database at '", path, "' (record a run first)"));
    return absl::FailedPreconditionError(absl::StrCat("cannot read history database '", path, "': ", std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) return NotOurs(path, "it is a folder");
  if (!S_ISREG(st.st_mode)) return NotOurs(path, "it is not a regular file");
  if (st.st_size == 0) return NotOurs(path, "it is empty (0 bytes)");
  char header[16] = {};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::FailedPreconditionError(absl::StrCat("cannot read history database '", path, "': ", std::strerror(errno)));
  const ssize_t n = ::read(fd, header, sizeof header);
  ::close(fd);
  if (n != static_cast<ssize_t>(sizeof header) || std::memcmp(header, "SQLite format 3", 16) != 0) {
    return NotOurs(path, "it is not an SQLite file (its first bytes are not \"SQLite format 3\")");
  }
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  auto close = absl::MakeCleanup([raw] { sqlite3_close_v2(raw); });
  if (rc != SQLITE_OK) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open history database '", path, "': ", raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(raw, 5000);  // only while SQLite recovers the WAL of a crashed writer
  return CheckSchema(raw, path);
}

// "<path>.creating.<pid>": where a new database is built before it is renamed to `path`.
std::string CreatingPath(const std::string& path) { return absl::StrCat(path, ".creating.", ::getpid()); }

void RemoveWithSidecars(const std::string& db) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) ::unlink((db + suffix).c_str());
}

// Removes what a creator killed before its rename left: "<path>.creating.<pid>" (and its WAL,
// shared-memory and journal files) of a process that no longer exists.
void RemoveStaleCreating(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string prefix = p.filename().string() + ".creating.";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(p.parent_path().empty() ? "." : p.parent_path(), ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    int pid = 0;
    if (!absl::SimpleAtoi(name.substr(prefix.size()), &pid) || pid <= 0) continue;  // a -wal etc. goes with its db
    if (::kill(pid, 0) != 0 && errno == ESRCH) RemoveWithSidecars(e.path().string());
  }
}

// Renames `from` to `to` unless something is at `to`: AlreadyExists then (`from` is left).
absl::Status RenameNoReplace(const std::string& from, const std::string& to) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return absl::OkStatus();
  if (errno == EINVAL || errno == ENOSYS) {  // a file system without RENAME_NOREPLACE: link, which never replaces
    if (::link(from.c_str(), to.c_str()) == 0) {
      ::unlink(from.c_str());
      return absl::OkStatus();
    }
  }
  if (errno == EEXIST) return absl::AlreadyExistsError(to);
  return absl::FailedPreconditionError(
      absl::StrCat("cannot create history database '", to, "': ", std::strerror(errno)));
}

void SyncFolderOf(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const int fd = ::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

using RowKey = std::tuple<std::string, std::string, int, double>;

std::vector<RowKey> SortedRows(const std::vector<ResultRow>& rows) {
  std::vector<RowKey> out;
  for (const ResultRow& r : rows) out.emplace_back(r.case_name, r.metric, r.repetition, r.value);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

absl::Status HistoryDb::Error(const std::string& what) const {
  return absl::InternalError(absl::StrCat("history database '", path_, "': ", what, ": ", sqlite3_errmsg(db_)));
}

absl::Status HistoryDb::Exec(const char* sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
    const std::string m = msg ? msg : sqlite3_errmsg(db_);
    sqlite3_free(msg);
    return absl::FailedPreconditionError(absl::StrCat("history database '", path_, "': ", m));
  }
  return absl::OkStatus();
}

// Builds a new database (with `run` in it when given) under CreatingPath(path), then renames it
// to `path`. Aborted when something appeared at `path` meanwhile (nothing is left behind then,
// nor on any failure). The run's id (0 without one).
absl::StatusOr<int64_t> HistoryDb::Create(const std::string& path, const RunRecord* run) {
  RemoveStaleCreating(path);
  const std::string tmp = CreatingPath(path);
  RemoveWithSidecars(tmp);
  auto remove_tmp = absl::MakeCleanup([&tmp] { RemoveWithSidecars(tmp); });
  int64_t id = 0;
  {
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open_v2(tmp.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    std::unique_ptr<HistoryDb> db(new HistoryDb(raw, path));
    if (rc != SQLITE_OK) {
      return absl::FailedPreconditionError(absl::StrCat("cannot create history database '", path, "' (as '", tmp,
                                                        "'): ", raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    }
    absl::Status st = db->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;");
    if (st.ok()) st = db->Exec("BEGIN IMMEDIATE");
    if (st.ok()) st = db->Exec(kSchema);
    if (st.ok()) st = db->Exec(absl::StrCat("PRAGMA user_version=", kSchemaVersion).c_str());
    if (st.ok()) st = db->Exec("COMMIT");
    if (!st.ok()) return st;
    if (run != nullptr) {
      absl::StatusOr<int64_t> r = db->Record(*run);
      if (!r.ok()) return r.status();
      id = *r;
    }
    // Everything into the main file before it is renamed: the WAL stays behind with the old name.
    Stmt cp(raw, "PRAGMA wal_checkpoint(TRUNCATE)");
    if (!cp.ok() || cp.Step() != SQLITE_ROW || sqlite3_column_int(cp.get(), 0) != 0) {
      return db->Error("writing the new database's log into it");
    }
  }
  if (const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!synced) return absl::FailedPreconditionError(absl::StrCat("cannot create history database '", path, "': fsync failed"));
  }
  if (absl::Status st = RenameNoReplace(tmp, path); !st.ok()) {
    return absl::IsAlreadyExists(st) ? absl::AbortedError(absl::StrCat("'", path, "' appeared meanwhile")) : st;
  }
  SyncFolderOf(path);
  return id;
}

absl::StatusOr<std::unique_ptr<HistoryDb>> HistoryDb::Open(const std::string& path, Access access,
                                                           int busy_timeout_ms) {
  absl::Status ours = CheckIsOurs(path);
  if (absl::IsNotFound(ours) && access == Access::kWrite) {
    absl::StatusOr<int64_t> made = Create(path, nullptr);
    if (!made.ok() && !absl::IsAborted(made.status())) return made.status();
    ours = CheckIsOurs(path);  // ours, or what another process put there meanwhile
  }
  if (!ours.ok()) return ours;
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
  std::unique_ptr<HistoryDb> db(new HistoryDb(raw, path));
  if (rc != SQLITE_OK) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open history database '", path, "': ", raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  if (access == Access::kRead) {
    // No write lock, no journal-mode change: under WAL a reader never waits for a writer.
    if (auto st = db->Exec("PRAGMA query_only=1"); !st.ok()) return st;
    return db;
  }
  Stmt mode(raw, "PRAGMA journal_mode");
  const bool wal = mode.ok() && mode.Step() == SQLITE_ROW && mode.ColText(0) == "wal";
  if (!wal) {
    if (auto st = db->Exec("PRAGMA journal_mode=WAL"); !st.ok()) return st;
  }
  if (auto st = db->Exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;"); !st.ok()) return st;
  return db;
}

absl::StatusOr<int64_t> HistoryDb::RecordAt(const std::string& path, const RunRecord& run) {
  if (absl::IsNotFound(CheckIsOurs(path))) {
    absl::StatusOr<int64_t> id = Create(path, &run);
    if (id.ok() || !absl::IsAborted(id.status())) return id;
  }
  absl::StatusOr<std::unique_ptr<HistoryDb>> db = Open(path, Access::kWrite);
  if (!db.ok()) return db.status();
  return (*db)->Record(run);
}

HistoryDb::~HistoryDb() { sqlite3_close_v2(db_); }

absl::Status HistoryDb::CheckNotRecorded(int64_t machine_id, const RunRecord& run, absl::Time instant) {
  Stmt s(db_, "SELECT id, commit_sha, date FROM runs WHERE machine_id = ? AND lower(commit_sha) = lower(?)");
  if (!s.ok()) return Error("looking for the run");
  s.Int(1, machine_id);
  s.Text(2, run.commit);
  while (s.Step() == SQLITE_ROW) {
    absl::StatusOr<absl::Time> t = ParseStoredDate(s.ColText(2));
    if (!t.ok() || *t != instant) continue;
    const int64_t id = sqlite3_column_int64(s.get(), 0);
    Stmt rows(db_, "SELECT case_name, metric, repetition, value FROM results WHERE run_id = ?");
    rows.Int(1, id);
    std::vector<ResultRow> held;
    while (rows.ok() && rows.Step() == SQLITE_ROW) {
      held.push_back({rows.ColText(0), rows.ColText(1), sqlite3_column_int(rows.get(), 2),
                      sqlite3_column_double(rows.get(), 3)});
    }
    const bool same = SortedRows(held) == SortedRows(run.rows);
    return absl::AlreadyExistsError(absl::StrCat(
        "history database '", path_, "' already holds ",
        same ? "this run" : "a run with other results", " of commit ", s.ColText(1), " dated ", s.ColText(2),
        " on this machine (run ", id, ")",
        same ? ": the same commit, machine, instant and results; a run is recorded once"
             : ": one commit, machine and instant is one run; refused"));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> HistoryDb::Record(const RunRecord& run) {
  absl::StatusOr<absl::Time> instant = ParseRfc3339(run.date);
  if (!instant.ok()) return instant.status();
  const std::string date = FormatUtc(*instant);
  if (auto st = Exec("BEGIN IMMEDIATE"); !st.ok()) return st;
  auto fail = [&](absl::Status st) {
    Exec("ROLLBACK").IgnoreError();
    return st;
  };
  int64_t machine_id = 0;
  {
    Stmt ins(db_, "INSERT OR IGNORE INTO machines (key_hash, description, fields_json) VALUES (?, ?, ?)");
    ins.Text(1, run.machine_hash);
    ins.Text(2, run.machine_description);
    ins.Text(3, run.machine_fields_json);
    if (!ins.ok() || ins.Step() != SQLITE_DONE) return fail(Error("adding the machine"));
    Stmt sel(db_, "SELECT id FROM machines WHERE key_hash = ?");
    sel.Text(1, run.machine_hash);
    if (!sel.ok() || sel.Step() != SQLITE_ROW) return fail(Error("finding the machine"));
    machine_id = sqlite3_column_int64(sel.get(), 0);
  }
  if (auto st = CheckNotRecorded(machine_id, run, *instant); !st.ok()) return fail(st);
  Stmt r(db_,
         "INSERT INTO runs (machine_id, commit_sha, date, source, context_json, recorded_at) VALUES (?, ?, ?, ?, ?, ?)");
  r.Int(1, machine_id);
  r.Text(2, run.commit);
  r.Text(3, date);
  r.Text(4, run.source);
  r.Text(5, run.context_json);
  r.Text(6, sysinfo::UtcNow());
  if (!r.ok() || r.Step() != SQLITE_DONE) return fail(Error("adding the run"));
  const int64_t run_id = sqlite3_last_insert_rowid(db_);
  Stmt row(db_, "INSERT INTO results (run_id, case_name, metric, repetition, value) VALUES (?, ?, ?, ?, ?)");
  if (!row.ok()) return fail(Error("preparing the results"));
  for (const ResultRow& x : run.rows) {
    row.Int(1, run_id);
    row.Text(2, x.case_name);
    row.Text(3, x.metric);
    row.Int(4, x.repetition);
    row.Real(5, x.value);
    if (row.Step() != SQLITE_DONE) {
      return fail(Error(absl::StrCat("adding ", x.case_name, " ", x.metric, " repetition ", x.repetition)));
    }
    row.Reset();
  }
  if (auto st = Exec("COMMIT"); !st.ok()) return fail(st);
  return run_id;
}

absl::StatusOr<std::vector<SeriesKey>> HistoryDb::ListSeries() {
  Stmt s(db_,
         "SELECT m.key_hash, m.description, x.case_name, x.metric, COUNT(DISTINCT x.run_id) FROM results x "
         "JOIN runs r ON r.id = x.run_id JOIN machines m ON m.id = r.machine_id "
         "GROUP BY m.key_hash, x.case_name, x.metric ORDER BY m.key_hash, x.case_name, x.metric");
  if (!s.ok()) return Error("listing the series");
  std::vector<SeriesKey> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    out.push_back({s.ColText(0), s.ColText(1), s.ColText(2), s.ColText(3), sqlite3_column_int64(s.get(), 4)});
  }
  if (rc != SQLITE_DONE) return Error("listing the series");
  return out;
}

absl::StatusOr<std::vector<SeriesPoint>> HistoryDb::LoadSeries(const std::string& machine_hash,
                                                               const std::string& case_name,
                                                               const std::string& metric) {
  Stmt s(db_,
         "SELECT r.id, r.commit_sha, r.date, x.value FROM results x JOIN runs r ON r.id = x.run_id "
         "JOIN machines m ON m.id = r.machine_id WHERE m.key_hash = ? AND x.case_name = ? AND x.metric = ? "
         "ORDER BY r.id, x.repetition");
  if (!s.ok()) return Error("reading a series");
  s.Text(1, machine_hash);
  s.Text(2, case_name);
  s.Text(3, metric);
  std::vector<SeriesPoint> out;
  std::vector<absl::Time> instants;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    const int64_t id = sqlite3_column_int64(s.get(), 0);
    if (out.empty() || out.back().run_id != id) {
      const std::string date = s.ColText(2);
      absl::StatusOr<absl::Time> t = ParseStoredDate(date);
      if (!t.ok()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "history database '", path_, "': run ", id, " (commit ", s.ColText(1), ") has the date '", date,
            "', which is not a date (recorded before dates were checked), so the series has no order; delete that run (",
            "DELETE FROM results WHERE run_id = ", id, "; DELETE FROM runs WHERE id = ", id, ") or correct its date"));
      }
      out.push_back({id, s.ColText(1), FormatUtc(*t), {}});
      instants.push_back(*t);
    }
    out.back().values.push_back(sqlite3_column_double(s.get(), 3));
  }
  if (rc != SQLITE_DONE) return Error("reading a series");
  // By instant, then by id (the order recorded): a date's spelling or zone never reorders runs.
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return instants[a] < instants[b]; });
  std::vector<SeriesPoint> sorted;
  sorted.reserve(out.size());
  for (size_t i : order) sorted.push_back(std::move(out[i]));
  return sorted;
}

absl::StatusOr<std::string> HistoryDb::IntegrityCheck() {
  Stmt s(db_, "PRAGMA integrity_check");
  if (!s.ok() || s.Step() != SQLITE_ROW) return Error("integrity_check");
  return s.ColText(0);
}

}  // namespace history
