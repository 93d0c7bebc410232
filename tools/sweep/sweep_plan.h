// Before a sweep runs: each point resolved as gpt_step itself resolves its flags
// (macro/step_options.h), its memory planned as gpt_step plans it (macro/step_memory.h) and held
// against what this machine may still allocate, and its FLOPs per step. A point that cannot run
// (it does not fit, its sequence is beyond its preset's block, a recompute level that means
// nothing for its preset, bf16 on a CPU whose oneDNN cannot run it) is refused here with one line
// naming the bytes or the limit, and the sweep goes on with the rest.
#ifndef TOOLS_SWEEP_SWEEP_PLAN_H_
#define TOOLS_SWEEP_SWEEP_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "macro/step_options.h"
#include "tools/sweep/sweep_grid.h"

namespace sweep {

// What every point shares: gpt_step's flags other than the axes.
struct CommonFlags {
  std::string device = "auto";
  int steps = 3, warmup_steps = 1;
  int threads = 0;
  std::string ceilings;  // passed on; also the GEMM-rate cache when given
};

struct PlannedPoint {
  SweepPoint point;
  macro::StepOptions options;  // as gpt_step will resolve them
  double model_flops_per_step = 0;
  int64_t memory_bytes = -1;   // the CPU plan's total (-1: not planned, on CUDA)
  std::string refused;         // why it cannot run; empty when it runs
};

// Every point planned, refused or not. Errors: none per point (those are refusals); a common
// flag gpt_step would reject (the message names it).
absl::StatusOr<std::vector<PlannedPoint>> PlanPoints(const std::vector<SweepPoint>& points, const CommonFlags& common);

// gpt_step's flags for one point (after the program), --benchmark_out=json_out.
std::vector<std::string> GptStepArgs(const PlannedPoint& p, const CommonFlags& common, const std::string& gemm_rates,
                                     const std::string& json_out);

}  // namespace sweep

#endif  // TOOLS_SWEEP_SWEEP_PLAN_H_
