// Per-rank accounting for data-parallel training (as nanoGPT counts DDP: every rank its own tokens over its own peak): which work over which peak.
//
//   per-rank MFU = LOCAL work / (step seconds x ONE device's peak)
//     local work = its batch x accumulation steps x seq x FLOPs per token
// Two mistakes this file names so tests can tell them apart from the right figure:
//   - inflated: GLOBAL work (all ranks) over one device's peak  = world x per-rank MFU;
//   - deflated: local work over ALL devices' peak               = per-rank MFU / world.
// Rank 0 summarises the ranks' figures (min, median, max, mean) and the communication share.
#ifndef MACRO_DDP_ACCOUNTING_H_
#define MACRO_DDP_ACCOUNTING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace macro {

// One rank's model FLOPs per optimizer step: batch x grad_accum x seq x flops_per_token.
// Errors: batch, grad_accum or seq < 1, flops_per_token not finite or <= 0.
absl::StatusOr<double> LocalStepFlops(double flops_per_token, int64_t batch, int64_t seq,
                                      int64_t grad_accum);

// The right figure: local work / (seconds x one device's peak). Errors as accounting::Mfu.
absl::StatusOr<double> PerRankMfu(double local_flops_per_step, double step_seconds,
                                  double peak_per_device);
// The wrong figures, kept for tests and for the log's explanation.
// Global work (local x world) over one device's peak: world times too high.
absl::StatusOr<double> InflatedMfu(double local_flops_per_step, int world, double step_seconds,
                                   double peak_per_device);
// Local work over all devices' peak (world x peak): world times too low.
absl::StatusOr<double> DeflatedMfu(double local_flops_per_step, int world, double step_seconds,
                                   double peak_per_device);

// Scaling: MFU at N ranks over MFU at 1 rank (1.0 = no loss). Errors: either not > 0.
absl::StatusOr<double> ScalingRatio(double mfu_n_ranks, double mfu_one_rank);

struct RankSummary {
  double min = 0, median = 0, max = 0, mean = 0;
  int argmin = 0, argmax = 0;  // rank with the min / max
  int n = 0;
};
// Summary of one value per rank (index = rank). Errors: empty.
absl::StatusOr<RankSummary> SummariseRanks(const std::vector<double>& per_rank);

}  // namespace macro

#endif  // MACRO_DDP_ACCOUNTING_H_
