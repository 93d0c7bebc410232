// The sweep itself: plan every point (sweep_plan.h), print the plan and the refusals, run each
// (point, repetition) in its own gpt_step process in the interleaved order (sweep_grid.h), a
// progress line per run, the JSON rewritten after each (sweep_output.h), and the summary at the
// end (sweep_summary.h).
#ifndef TOOLS_SWEEP_SWEEP_RUN_H_
#define TOOLS_SWEEP_SWEEP_RUN_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "tools/sweep/sweep_grid.h"
#include "tools/sweep/sweep_plan.h"

namespace sweep {

struct SweepSettings {
  SweepAxes axes;
  CommonFlags common;
  int repetitions = 2;
  std::string out, log_dir;
  bool dry_run = false;
  std::string command;  // as typed, for the JSON
};

// The exit status (harness/exit_codes.h): 0, or 2 when nothing could run, the output could not be
// written, or a run failed. find_gpt_step is asked only when something will run.
int RunSweep(const SweepSettings& settings, const std::function<absl::StatusOr<std::string>()>& find_gpt_step);

}  // namespace sweep

#endif  // TOOLS_SWEEP_SWEEP_RUN_H_
