// Baseline files: one per machine key and suite, in tools/gate/baselines/ (gate_key.h names them).
//
//   {
//     "format": "mlbench-gate-baseline/2",
//     "key": "<MachineKey::Describe()>", "suite": "quick",
//     "machine": {"cpu.family": "25", ...}   (every field of the machine key, gate_key.h),
//     "provenance": {commit, date, host_name, build_type, source, updated_cases, kept_cases},
//     "history": [{commit, date, updated_cases}, ...]   (latest last, at most 50),
//     "context": <context of the run last recorded>,
//     "benchmarks": [<Google Benchmark iteration entries>, each with
//                    "mlbench_recorded": {commit, date measured}]
//   }
// It has "context" and "benchmarks" like a run, so gate_run.h reads it as one.
//
// An update merges: every verified case of the current run replaces that case's entries;
// cases the run did not touch (another filter) and unverified ones keep their old entries,
// each with the commit and date it was recorded at. With pool_runs > 1 (gate --pool=N) the
// current repetitions are added to the case's entries instead, keeping its N most recent
// recordings: a baseline pooled over runs made at different moments has a median that does
// not depend on one moment's machine state, and an IQR that includes the run-to-run drift
// (the gate's noise floor, gate_compare.h). Only this key's file is written
// (temporary file + rename); other machines' files are never opened for writing. gate --update
// holds the folder's lock (harness/folder_lock.h) from reading the file to writing it, so two
// updates of one folder at once serialize and neither's cases are lost.
#ifndef TOOLS_GATE_GATE_BASELINE_H_
#define TOOLS_GATE_GATE_BASELINE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tools/gate/gate_key.h"
#include "tools/gate/gate_run.h"

namespace gate {

inline constexpr char kBaselineFormat[] = "mlbench-gate-baseline/2";

// Checks "format", that the file's machine key equals `key` (otherwise the error lists the
// fields that differ: a baseline of another machine is refused, never compared), and that its
// "benchmarks" read as a run (ParseRun).
absl::Status ValidateBaseline(const nlohmann::json& baseline, const MachineKey& key, const std::string& path);

// For the baseline files of `suite` in `dir` (none of which has `key`'s name): one line each,
// "<file>: <the fields that differ from key>", so a user sees why nothing matched.
std::vector<std::string> OtherMachinesBaselines(const std::string& dir, const std::string& suite,
                                                const MachineKey& key);

struct UpdateStats {
  int updated_cases = 0;
  int kept_cases = 0;
  int skipped_unverified = 0;
  int max_recordings = 0;  // most recordings pooled in one case after the update
};

// The merged baseline document. `existing` is null when there is no file yet.
nlohmann::json MergeBaseline(const nlohmann::json* existing, const Run& current, const MachineKey& key,
                             const std::string& suite, bool require_verified, const std::string& date,
                             UpdateStats* stats, int pool_runs = 1);

// Creates `dir` and its missing parents (mode 0755); an error names the folder that failed.
absl::Status MakeBaselineFolder(const std::string& dir);

// Reads `path` if it exists (NotFound otherwise), merges and writes it atomically, creating
// the folder if needed.
absl::StatusOr<UpdateStats> UpdateBaselineFile(const std::string& path, const Run& current,
                                               const MachineKey& key, const std::string& suite,
                                               bool require_verified, const std::string& date,
                                               int pool_runs = 1);

}  // namespace gate

#endif  // TOOLS_GATE_GATE_BASELINE_H_
