// The sweep's closing lines: per point the medians over its repetitions (step time, MFU, the
// prediction and the peak memory, each beside its prediction); the points where the step-time
// prediction misses by more than 25% (the finding to look into, with the terms of the
// prediction so that the missing one shows); and each curve's knee (accounting/mfu_knee.h: the
// smallest B*T at 90% of the curve's best MFU).
#ifndef TOOLS_SWEEP_SWEEP_SUMMARY_H_
#define TOOLS_SWEEP_SWEEP_SUMMARY_H_

#include <string>
#include <vector>

#include "tools/sweep/sweep_output.h"
#include "tools/sweep/sweep_plan.h"

namespace sweep {

// How far the prediction may be from the measured step time, as a fraction of the measurement
// (|predicted - measured| / measured; tools/report's band is the same), before it is a finding.
inline constexpr double kPredictionTolerance = 0.25;

struct PointMedians {
  int point = 0;
  int runs = 0;
  double ms_per_step = 0, mfu = -1, mfu_min = -1, mfu_max = -1, predicted_ms = -1;
  double peak_bytes_measured = -1, predicted_peak_bytes = -1;
  double predicted_gemm_ms = -1, predicted_attention_ms = -1, predicted_memory_ops_ms = -1, predicted_adamw_ms = -1;
  double tokens = 0;
};

// Medians over each point's finished (not errored) runs, in point order.
std::vector<PointMedians> MediansByPoint(const std::vector<PlannedPoint>& planned, const SweepOutput& output);

std::vector<std::string> SummaryLines(const std::vector<PlannedPoint>& planned, const SweepOutput& output);

}  // namespace sweep

#endif  // TOOLS_SWEEP_SWEEP_SUMMARY_H_
