// SQLite storage of benchmark runs (history_db.h).
#include "tools/history/history_db.h"

#include <sqlite3.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "sysinfo/utc_now.h"

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

absl::StatusOr<std::unique_ptr<HistoryDb>> HistoryDb::Open(const std::string& path, int busy_timeout_ms) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  std::unique_ptr<HistoryDb> db(new HistoryDb(raw, path));
  if (rc != SQLITE_OK) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open history database '", path, "': ", raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  // journal_mode=WAL reads the file: a file that is not a database fails here.
  if (auto st = db->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;"); !st.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(st.message(), " (is it an SQLite file made by tools/history?)"));
  }
  if (auto st = db->Exec("BEGIN IMMEDIATE"); !st.ok()) return st;
  Stmt v(raw, "PRAGMA user_version");
  int version = -1;
  if (v.ok() && v.Step() == SQLITE_ROW) version = sqlite3_column_int(v.get(), 0);
  absl::Status st;
  if (version > kSchemaVersion) {
    st = absl::FailedPreconditionError(absl::StrCat("history database '", path, "' has schema version ", version,
                                                    "; this tools/history reads up to ", kSchemaVersion,
                                                    ": use a newer checkout"));
  } else if (version < kSchemaVersion) {
    st = db->Exec(kSchema);
    if (st.ok()) st = db->Exec(absl::StrCat("PRAGMA user_version=", kSchemaVersion).c_str());
  }
  if (!st.ok()) {
    db->Exec("ROLLBACK").IgnoreError();
    return st;
  }
  if (auto c = db->Exec("COMMIT"); !c.ok()) return c;
  return db;
}

HistoryDb::~HistoryDb() { sqlite3_close_v2(db_); }

absl::StatusOr<int64_t> HistoryDb::Record(const RunRecord& run) {
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
  {
    Stmt dup(db_, "SELECT id FROM runs WHERE machine_id = ? AND commit_sha = ? AND date = ?");
    dup.Int(1, machine_id);
    dup.Text(2, run.commit);
    dup.Text(3, run.date);
    if (dup.ok() && dup.Step() == SQLITE_ROW) {
      return fail(absl::AlreadyExistsError(absl::StrCat("history database '", path_, "' already holds a run of commit ",
                                                        run.commit, " dated ", run.date, " on this machine (run ",
                                                        sqlite3_column_int64(dup.get(), 0), ")")));
    }
  }
  Stmt r(db_,
         "INSERT INTO runs (machine_id, commit_sha, date, source, context_json, recorded_at) VALUES (?, ?, ?, ?, ?, ?)");
  r.Int(1, machine_id);
  r.Text(2, run.commit);
  r.Text(3, run.date);
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
         "ORDER BY r.date, r.id, x.repetition");
  if (!s.ok()) return Error("reading a series");
  s.Text(1, machine_hash);
  s.Text(2, case_name);
  s.Text(3, metric);
  std::vector<SeriesPoint> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    const int64_t id = sqlite3_column_int64(s.get(), 0);
    if (out.empty() || out.back().run_id != id) out.push_back({id, s.ColText(1), s.ColText(2), {}});
    out.back().values.push_back(sqlite3_column_double(s.get(), 3));
  }
  if (rc != SQLITE_DONE) return Error("reading a series");
  return out;
}

absl::StatusOr<std::string> HistoryDb::IntegrityCheck() {
  Stmt s(db_, "PRAGMA integrity_check");
  if (!s.ok() || s.Step() != SQLITE_ROW) return Error("integrity_check");
  return s.ColText(0);
}

}  // namespace history
