// A benchmark JSON file (tools/bench's merged run, or the Google Benchmark JSON of gpt_step,
// ddp_step, gpt_decode and the micro binaries) as a history RunRecord: its machine key
// (tools/gate/gate_key.h), commit, date, run context, and per case and repetition the metrics
//   real_time, cpu_time   in seconds, whatever the file's time_unit
//   every other number    the entry's counters (tokens_per_second, mfu, ...), as written
// Repetitions that errored, failed their output check (verified = 0) or were DISTURBED are left
// out and counted; a file with nothing left is refused.
//
// Non-finite values (Google Benchmark writes a bare NaN or Infinity): a real_time or cpu_time
// that is NaN or Infinity refuses the run, naming the case, repetition and value (a time that is
// not a number is a broken measurement); a counter that is NaN or Infinity is left out of the
// record and named in ParsedRun::dropped (the tool prints each as a warning), the rest of the run
// is recorded.
//
// The commit is stored as a full commit id in lower case (40 hex digits; 64 in a SHA-256
// repository), with the "+dirty" of a run built from a modified tree kept: a full id is taken as
// it is; anything else (HEAD, a short id, a branch) only through RecordOptions::resolve_commit
// (`git rev-parse --verify REV^{commit}` in the tool). The date is stored in UTC (rfc3339.h).
#ifndef TOOLS_HISTORY_RUN_RECORD_H_
#define TOOLS_HISTORY_RUN_RECORD_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tools/history/history_db.h"

namespace history {

// A revision's full commit id, or an error saying why it has none (git's message).
using CommitResolver = std::function<absl::StatusOr<std::string>(const std::string& rev)>;

struct RecordOptions {
  std::string commit;  // overrides the run context's build.commit (importing old results)
  std::string date;    // overrides the run's date; RFC 3339 (rfc3339.h), e.g. 2026-11-30T12:00:00Z
  CommitResolver resolve_commit;  // for a commit that is not a full id; none: only full ids
};

struct ParsedRun {
  RunRecord record;
  int left_out = 0;                  // repetitions not recorded (errored, unverified or DISTURBED)
  std::vector<std::string> dropped;  // "BM_X repetition 0: counter bytes_per_second is Infinity"
};

// True for a full commit id: 40 (or 64) hex digits, any case, optionally followed by "+dirty".
bool IsFullCommit(const std::string& s);

// `commit` as stored: a full id lower-cased, or `resolve`'s answer for anything else ("+dirty"
// kept). `from` says where the value came from, for the message ("--commit", "its run context's
// build.commit"). InvalidArgument naming the value and what is allowed.
absl::StatusOr<std::string> NormalizeCommit(const std::string& commit, const std::string& from,
                                            const CommitResolver& resolve);

// Errors name `source` and the reason: not JSON, no benchmarks, no run context (so no machine
// key), no commit (give --commit) or one that is not a full id and does not resolve, a date that
// is not RFC 3339, a time that is NaN or Infinity, nothing to record.
absl::StatusOr<ParsedRun> ParseRunJson(const nlohmann::json& j, const std::string& source, const RecordOptions& o);

// The text of a file: Google Benchmark's bare NaN and Infinity quoted, parsed, then ParseRunJson.
absl::StatusOr<ParsedRun> ParseRunText(const std::string& text, const std::string& source, const RecordOptions& o);

// Reads the file (tools/gate's bounded reader), then ParseRunText.
absl::StatusOr<ParsedRun> ReadRunFile(const std::string& path, const RecordOptions& o);

}  // namespace history

#endif  // TOOLS_HISTORY_RUN_RECORD_H_
