// Per-step times of a gpt_step run in its JSON output, for plots of every step (tools/report's
// steps.svg). Google Benchmark's JSON holds one entry per repetition with scalar counters and
// no place for a series, so after the run the --benchmark_out file (JSON format) is amended:
// each repetition's entry gets
//
//   "step_times_s": {"warmup": [s, ...], "timed": [s, ...]}
//
// in seconds, in step order: the warm-up steps that ran before that repetition (only the first
// one warms up) and its timed steps. gpt_step amends the report in memory before the harness
// writes it (harness::SetBenchmarkOutJsonAmender). JSON written to stdout
// (--benchmark_format=json without --benchmark_out) carries no series.
#ifndef MACRO_STEP_SERIES_H_
#define MACRO_STEP_SERIES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace macro {

struct StepSeriesRecord {
  int case_index = 0;
  int repetition = 0;  // 0-based, per case
  std::vector<double> warmup_s, timed_s;
};

class StepSeriesLog {
 public:
  // The registered name of case `case_index` ("BM_GptStep/<case>"; Google Benchmark appends
  // /iterations:N/manual_time to it in the JSON).
  void SetCaseName(int case_index, const std::string& name);
  // Starts the next repetition of a case; the steps below go to it.
  void BeginRepetition(int case_index);
  void AddWarmup(double seconds);
  void AddTimed(double seconds);

  const std::vector<StepSeriesRecord>& records() const { return records_; }
  const std::vector<std::string>& case_names() const { return names_; }

 private:
  std::vector<std::string> names_;
  std::vector<StepSeriesRecord> records_;
};

// Adds each record's series to the entry of its case and repetition (run_type "iteration") in
// Google Benchmark JSON text `json`; `what` names it in errors (not Google Benchmark JSON).
// Entries without a record are left as they are.
absl::StatusOr<std::string> AddStepSeriesToJsonText(const std::string& json, const StepSeriesLog& log,
                                                    const std::string& what);

// The same for the JSON file at `path`, rewritten through harness/atomic_file.h. Errors name the
// file: unreadable, not Google Benchmark JSON, unwritable.
absl::Status AddStepSeriesToJson(const std::string& path, const StepSeriesLog& log);

}  // namespace macro

#endif  // MACRO_STEP_SERIES_H_
