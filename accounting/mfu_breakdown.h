// Where the MFU went: one training step's time split into parts that add up to 100%, the first
// of which is the MFU itself.
//
//   mfu                 = model FLOPs / (step time x peak)                    (accounting/mfu.h)
//   gemm_efficiency     = (sum over the step's GEMMs of flops / measured rate
//                          - the same flops / peak) / step time
//                         the time the GEMM library loses against the peak at these shapes
//   gemm_in_step        = (the GEMM ops' time inside the step, as the op timer saw it
//                          - their time at the measured rates) / step time
//                         the GEMMs running slower inside the step than alone (cold caches,
//                         the bias sums of their backward); negative when faster. 0, and
//                         folded into non_matmul, when the in-step time was not measured
//   optimizer_and_data  = (optimizer + data time) / step time
//   non_matmul          = 1 - the others: the rest of forward + backward (LayerNorm,
//                         attention with its small per-head products, GeLU, cross-entropy,
//                         residuals), its own time only when gemm_in_step was measured
//
// A pure function: tested for the sum and for the MFU part equalling accounting::Mfu.
#ifndef ACCOUNTING_MFU_BREAKDOWN_H_
#define ACCOUNTING_MFU_BREAKDOWN_H_

#include <string>

#include "absl/status/statusor.h"

namespace accounting {

struct MfuBreakdownInput {
  double model_flops_per_step = 0;        // the MFU numerator (6N + attention)
  double peak_flops_per_s = 0;            // the MFU denominator's peak
  double step_seconds = 0;                // mean step time, all phases
  double optimizer_and_data_seconds = 0;  // mean per step
  double gemm_flops_per_step = 0;         // FLOPs of the GEMMs whose rates were measured
  double gemm_seconds_at_rates = 0;       // sum of their flops / measured rate
  // The GEMM ops' own time inside the mean step (the op timer's); < 0: not measured.
  double gemm_seconds_in_step = -1;
};

struct MfuBreakdown {
  double mfu = 0, gemm_efficiency = 0, gemm_in_step = 0, non_matmul = 0, optimizer_and_data = 0;  // fractions
  bool in_step_measured = false;  // gemm_in_step is a measurement (else 0, inside non_matmul)

  double sum() const { return mfu + gemm_efficiency + gemm_in_step + non_matmul + optimizer_and_data; }
};

// Errors name the field: non-finite values, step_seconds or peak <= 0, negative times or FLOPs
// (gemm_seconds_in_step: negative other than "not measured"), optimizer_and_data_seconds >
// step_seconds, in-step GEMM time > step_seconds - optimizer_and_data_seconds, or GEMM time at
// the measured rates shorter than the same FLOPs at the peak (a rate above the peak: the peak or
// the rates are wrong).
absl::StatusOr<MfuBreakdown> BreakDownMfu(const MfuBreakdownInput& in);

}  // namespace accounting

#endif  // ACCOUNTING_MFU_BREAKDOWN_H_
