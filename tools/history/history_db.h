// The benchmark history: an SQLite file of runs and their results, one machine key, case,
// metric, commit and date per result (tools/history/README in the top README's "History").
//
// Schema version 1 (PRAGMA user_version; a file of a newer version is refused, an older one would
// be migrated here):
//   machines(id, key_hash UNIQUE, description, fields_json)    tools/gate's machine key
//   runs(id, machine_id, commit_sha, date, source, context_json, recorded_at,
//        UNIQUE(machine_id, commit_sha, date))                  one recorded JSON file
//   results(run_id, case_name, metric, repetition, value,
//           PRIMARY KEY(run_id, case_name, metric, repetition)) seconds for real_time and
//                                                               cpu_time, else the counter's unit
// runs.date is stored in UTC in one spelling (tools/history/rfc3339.h: 2026-12-02T00:30:00Z); a
// series is ordered by the instant, never by the text (files written before dates were checked
// may hold other spellings, read as the instant they name).
//
// Only files of ours are opened: a path that is a folder, a 0-byte file, a file that is not
// SQLite, or an SQLite file without this schema is refused, after reading it read-only, before
// anything is written to it. A new file is made only by RecordAt (or Open for writing) at a path
// that does not exist, and atomically: it is built under a temporary name in the same folder and
// renamed into place (never over an existing file), so a failure leaves no file behind.
//
// The file runs in WAL mode with synchronous=FULL: a run is recorded in one IMMEDIATE transaction,
// so a writer killed at any point leaves either the whole run or none of it, and several writers
// may record at once (each waits up to busy_timeout for the others). Readers take no write lock
// and never wait for a writer.
#ifndef TOOLS_HISTORY_HISTORY_DB_H_
#define TOOLS_HISTORY_HISTORY_DB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

struct sqlite3;

namespace history {

inline constexpr int kSchemaVersion = 1;

struct ResultRow {
  std::string case_name, metric;
  int repetition = 0;
  double value = 0;
};

struct RunRecord {
  std::string machine_hash, machine_description, machine_fields_json;
  std::string commit, date, source, context_json;
  std::vector<ResultRow> rows;
};

struct SeriesKey {
  std::string machine_hash, machine_description, case_name, metric;
  int64_t runs = 0;
};

struct SeriesPoint {
  int64_t run_id = 0;
  std::string commit, date;
  std::vector<double> values;  // one per repetition
};

enum class Access {
  kRead,   // an existing database of ours, opened query-only: NotFound when the path does not exist
  kWrite,  // an existing database of ours, or a new empty one when the path does not exist
};

class HistoryDb {
 public:
  // Opens the file at `path` (see the top of this file for what is refused). NotFound for kRead
  // when nothing is there; FailedPrecondition naming the file and the reason when it is not a
  // database of ours or has a newer schema.
  static absl::StatusOr<std::unique_ptr<HistoryDb>> Open(const std::string& path, Access access = Access::kWrite,
                                                         int busy_timeout_ms = 30000);

  // Records `run` into the database at `path`; when nothing is there, the new file appears with
  // the run in it or not at all. The run's id; the errors of Open and Record.
  static absl::StatusOr<int64_t> RecordAt(const std::string& path, const RunRecord& run);
  ~HistoryDb();
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  // Records a run and all its rows in one transaction; its id. The date is stored normalised
  // (InvalidArgument when it is not RFC 3339). AlreadyExists when the machine already has a run
  // of this commit (compared in lower case) at this instant, however either date is spelled: the
  // message says whether its results are the same (the run recorded twice) or differ.
  absl::StatusOr<int64_t> Record(const RunRecord& run);

  // Every (machine, case, metric) with its number of runs, sorted.
  absl::StatusOr<std::vector<SeriesKey>> ListSeries();

  // One series' runs, oldest first: by the instant of their date, then in the order they were
  // recorded; each date normalised (rfc3339.h FormatUtc). FailedPrecondition naming the run
  // when a stored date is not a date (a file written before dates were checked).
  absl::StatusOr<std::vector<SeriesPoint>> LoadSeries(const std::string& machine_hash, const std::string& case_name,
                                                      const std::string& metric);

  // PRAGMA integrity_check's answer ("ok" when sound).
  absl::StatusOr<std::string> IntegrityCheck();

  const std::string& path() const { return path_; }

 private:
  HistoryDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  absl::Status Exec(const char* sql);
  absl::Status Error(const std::string& what) const;
  absl::Status CheckNotRecorded(int64_t machine_id, const RunRecord& run, absl::Time instant);
  static absl::StatusOr<int64_t> Create(const std::string& path, const RunRecord* run);

  sqlite3* db_;
  std::string path_;
};

}  // namespace history

#endif  // TOOLS_HISTORY_HISTORY_DB_H_
