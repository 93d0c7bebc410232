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
// The file runs in WAL mode with synchronous=FULL: a run is recorded in one IMMEDIATE transaction,
// so a writer killed at any point leaves either the whole run or none of it, and several writers
// may record at once (each waits up to busy_timeout for the others).
#ifndef TOOLS_HISTORY_HISTORY_DB_H_
#define TOOLS_HISTORY_HISTORY_DB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

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

class HistoryDb {
 public:
  // Opens or creates the file (its folder must exist). FailedPrecondition naming the file when
  // it is not an SQLite database or has a newer schema.
  static absl::StatusOr<std::unique_ptr<HistoryDb>> Open(const std::string& path, int busy_timeout_ms = 30000);
  ~HistoryDb();
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  // Records a run and all its rows in one transaction; its id. AlreadyExists when the machine
  // already has a run of this commit and date (the same file recorded twice).
  absl::StatusOr<int64_t> Record(const RunRecord& run);

  // Every (machine, case, metric) with its number of runs, sorted.
  absl::StatusOr<std::vector<SeriesKey>> ListSeries();

  // One series' runs, oldest first (by date, then by the order they were recorded).
  absl::StatusOr<std::vector<SeriesPoint>> LoadSeries(const std::string& machine_hash, const std::string& case_name,
                                                      const std::string& metric);

  // PRAGMA integrity_check's answer ("ok" when sound).
  absl::StatusOr<std::string> IntegrityCheck();

  const std::string& path() const { return path_; }

 private:
  HistoryDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  absl::Status Exec(const char* sql);
  absl::Status Error(const std::string& what) const;

  sqlite3* db_;
  std::string path_;
};

}  // namespace history

#endif  // TOOLS_HISTORY_HISTORY_DB_H_
