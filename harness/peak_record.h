// This machine's record: the best start-up figures that quiet runs of the same machine key
// (harness/machine_key.h, tools/gate's key) measured, kept in the user's cache folder, so that a
// run whose probes are all slow together is seen as DISTURBED (accounting/disturbed.h).
//
//   $XDG_CACHE_HOME/mlbench/peak_record.json, else $HOME/.cache/mlbench/peak_record.json
//   {"format": "mlbench-peak-record/1",
//    "machines": {"3f2a9c1e": {"machine": "<its description>",
//                              "figures": {"fp32_fma/threads=2": {"value": 2.352e11, "unit": "FLOP/s",
//                                                                 "date": "2026-12-03T12:00:00Z"}, ...}}}}
//
// A figure's name says what was measured and with what: "fp32_fma/threads=2" (the FMA loop on 2
// threads), "bf16/threads=2", "stream_triad/threads=2/array_mib=128", "stream_copy/...". A record
// only moves up (RaisePeakRecord). Updates are read-merge-write under an flock on
// "<file>.lock", written whole through harness/atomic_file.h, so two processes raising at once
// (ddp_step's ranks) both land and a reader never sees half a file. A file that is not a peak
// record (corrupt, another program's, another format) is never used nor overwritten: the caller
// warns and goes on without a record.
//
// MLBENCH_PEAK_RECORD=FILE keeps the record in FILE instead (an absolute path; tests point it into
// their temporary folder), MLBENCH_PEAK_RECORD=off disables it.
#ifndef HARNESS_PEAK_RECORD_H_
#define HARNESS_PEAK_RECORD_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/machine_key.h"

namespace harness {

inline constexpr char kPeakRecordEnv[] = "MLBENCH_PEAK_RECORD";
inline constexpr char kPeakRecordFormat[] = "mlbench-peak-record/1";
// A record file is a few KiB; anything past this is not one.
inline constexpr uint64_t kMaxPeakRecordBytes = uint64_t{16} << 20;

// Where the record is kept: $MLBENCH_PEAK_RECORD when set (nullopt for "off"), else
// "<CacheRoot()>/peak_record.json", the folder created private as harness/cache_dir.h makes it.
// Errors: MLBENCH_PEAK_RECORD not an absolute path nor "off" (InvalidArgument, naming the value and
// what is allowed); no usable cache folder (FailedPrecondition, saying why).
absl::StatusOr<std::optional<std::string>> PeakRecordPath();

// One figure of a machine's record.
struct RecordFigure {
  std::string name;  // "fp32_fma/threads=2"
  double value = 0;  // per second
  std::string unit;  // "FLOP/s", "B/s"
};

// The figures recorded for the machine `machine_hash` in `path`, by name; empty when the file or
// the machine is not there yet. FailedPrecondition naming the file and why when it is not a peak
// record: unreadable, over kMaxPeakRecordBytes, not JSON, another format, or an entry whose value
// is not a finite number > 0.
absl::StatusOr<std::map<std::string, double>> ReadPeakRecord(const std::string& path,
                                                             const std::string& machine_hash);

struct RecordRaise {
  std::string name;
  double from = 0;  // the record before; 0: none
  double to = 0;
  std::string unit;
};

// Raises `machine`'s figures in `path` to those of `figures` that are higher (or not recorded
// yet), under the file's lock (waiting up to lock_timeout_s), and writes the file whole; the
// other machines' entries are kept as they are. Returns what was raised (empty: nothing was, and
// the file is not rewritten). Errors leave the file as it was: a file that is not a peak record
// (ReadPeakRecord's error), a figure that is not finite and > 0 or has no name, the lock not taken
// in time, a failed write (naming the file and the system's reason).
absl::StatusOr<std::vector<RecordRaise>> RaisePeakRecord(const std::string& path, const MachineId& machine,
                                                         const std::vector<RecordFigure>& figures,
                                                         double lock_timeout_s = 10);

}  // namespace harness

#endif  // HARNESS_PEAK_RECORD_H_
