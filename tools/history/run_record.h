// A benchmark JSON file (tools/bench's merged run, or the Google Benchmark JSON of gpt_step,
// ddp_step, gpt_decode and the micro binaries) as a history RunRecord: its machine key
// (tools/gate/gate_key.h), commit, date, run context, and per case and repetition the metrics
//   real_time, cpu_time   in seconds, whatever the file's time_unit
//   every other number    the entry's counters (tokens_per_second, mfu, ...), as written
// Repetitions that errored, failed their output check (verified = 0) or were DISTURBED are left
// out and counted; a file with nothing left is refused.
#ifndef TOOLS_HISTORY_RUN_RECORD_H_
#define TOOLS_HISTORY_RUN_RECORD_H_

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tools/history/history_db.h"

namespace history {

struct RecordOptions {
  std::string commit;  // overrides the run context's build.commit (importing old results)
  std::string date;    // overrides the run's date; ISO 8601, e.g. 2026-11-30T12:00:00Z
};

struct ParsedRun {
  RunRecord record;
  int left_out = 0;  // repetitions not recorded (errored, unverified or DISTURBED)
};

// True for "YYYY-MM-DD" optionally followed by "THH:MM[:SS[.fff]]" and "Z" or "+HH:MM"/"-HH:MM".
bool IsIso8601(const std::string& s);

// Errors name `source` and the reason: not JSON, no benchmarks, no run context (so no machine
// key), no commit (give --commit), a bad date, nothing to record.
absl::StatusOr<ParsedRun> ParseRunJson(const nlohmann::json& j, const std::string& source, const RecordOptions& o);

// The text of a file: Google Benchmark's bare NaN and Infinity quoted, parsed, then ParseRunJson.
absl::StatusOr<ParsedRun> ParseRunText(const std::string& text, const std::string& source, const RecordOptions& o);

// Reads the file (tools/gate's bounded reader), then ParseRunText.
absl::StatusOr<ParsedRun> ReadRunFile(const std::string& path, const RecordOptions& o);

}  // namespace history

#endif  // TOOLS_HISTORY_RUN_RECORD_H_
