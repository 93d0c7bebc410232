// The sweep's one Google Benchmark JSON file, built up as its runs finish and written whole
// after each one (through a temporary file and a rename), so that Ctrl-C or a crash at any
// moment leaves a valid file of the runs finished so far.
//
//   context:    the first finished run's gpt_step context, plus "mlbench_machine_key" (the
//               8-hex-digit key tools/gate and tools/report go by) and "mlbench_sweep" (a JSON
//               text: format "mlbench-sweep/1", the axes, repetitions, steps, the command, the
//               refused points with their reasons, the failed runs)
//   benchmarks: one entry per finished run: gpt_step's entry (its counters: mfu, ms_per_step,
//               predicted_ms, measured_over_predicted, mem_peak_bytes_measured, ...), named
//               "BM_Sweep/<preset>/<device>/<dtype>/B:<b>/T:<t>/recompute:<level>", with
//               repetitions and repetition_index of the sweep, plus mfu_min and mfu_max over the
//               point's finished repetitions; a failed run is an entry with error_occurred and
//               the reason.
#ifndef TOOLS_SWEEP_SWEEP_OUTPUT_H_
#define TOOLS_SWEEP_SWEEP_OUTPUT_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tools/sweep/sweep_plan.h"

namespace sweep {

// What a progress line and the summary need from one finished run.
struct RunFigures {
  double ms_per_step = 0, mfu = -1, predicted_ms = -1, peak_bytes_measured = -1, predicted_peak_bytes = -1;
  double flops_per_second = 0;
  bool disturbed = false;
};

class SweepOutput {
 public:
  // `sweep_info`: the axes, repetitions, steps and command (an object; refused and failed are
  // added here).
  SweepOutput(const std::vector<PlannedPoint>& planned, int repetitions, nlohmann::json sweep_info);

  // A finished run: gpt_step's --benchmark_out text. Error when it is not gpt_step's JSON with
  // one iteration entry (the run then counts as failed: AddFailure).
  absl::StatusOr<RunFigures> AddRun(int point, int repetition, const std::string& gpt_step_json);
  void AddFailure(int point, int repetition, const std::string& reason);

  int finished() const { return static_cast<int>(runs_.size()); }
  int failed() const { return failures_; }
  // The whole file.
  std::string Json() const;
  // Every run so far: the point and its entry (an errored one has error_occurred).
  const std::vector<std::pair<int, nlohmann::json>>& runs() const { return runs_; }

 private:
  std::vector<PlannedPoint> planned_;
  int repetitions_ = 1;
  nlohmann::json info_;
  nlohmann::json context_;  // null until the first run
  std::vector<std::pair<int, nlohmann::json>> runs_;  // point, entry
  std::map<int, std::vector<double>> mfu_;
  int failures_ = 0;
};

}  // namespace sweep

#endif  // TOOLS_SWEEP_SWEEP_OUTPUT_H_
