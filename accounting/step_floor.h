// A training step's floor: the least time its work could take on this machine at the rates it
// measured, so that the step time reads as a multiple of something reachable, not only as a
// fraction of the FMA peak (MFU).
//
//   floor = the step's GEMMs at their isolated rates (the rate of each shape, measured alone)
//         + AdamW's bytes at the in-place memory roof measured in the same run
//
// Everything else (LayerNorm, attention's softmax, GeLU, cross-entropy, residuals, the data)
// counts as time above the floor: a fused step could hide it in the GEMMs' memory traffic.
// AdamW's bytes: per fp32 parameter it reads p, g, m and v and writes p, m and v, 7 x 4 = 28
// bytes, and that is all it moves: it writes in place, so no write-allocate read is hidden in
// it. Its roof is the in_place one (accounting/memory_roofs.h: arrays updated where they were
// read, from another array read alone), the same kind of traffic. The floor's first form held it
// to STREAM's triad, which writes a fresh array: AdamW ran at 143-190% of the triad's counted
// bytes/s and 105-143% of what the triad moves, so that part of the floor was no lower bound.
#ifndef ACCOUNTING_STEP_FLOOR_H_
#define ACCOUNTING_STEP_FLOOR_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace accounting {

// fp32 AdamW: read p, g, m, v; write p, m, v.
inline constexpr double kAdamWBytesPerFp32Param = 28;
// The CPU's bf16 step: the same, plus the weight's bf16 copy written in the same pass.
inline constexpr double kAdamWBytesPerBf16CopyParam = 30;

struct StepFloorInput {
  double gemm_seconds_at_rates = 0;  // sum over the step's GEMMs of flops / isolated rate
  int64_t params = 0;                // parameters AdamW updates
  double in_place_bytes_per_s = 0;   // the in_place memory roof (counted = moved), this run
  double step_seconds = 0;           // the mean step time, all phases
  double adamw_bytes_per_param = kAdamWBytesPerFp32Param;  // 30 with the bf16 copy
};

struct StepFloor {
  double gemm_seconds = 0;     // = gemm_seconds_at_rates
  double adamw_bytes = 0;      // params x adamw_bytes_per_param (28, or 30 with the bf16 copy)
  double adamw_seconds = 0;    // adamw_bytes / in_place_bytes_per_s
  double seconds = 0;          // gemm_seconds + adamw_seconds
  double step_multiple = 0;    // step_seconds / seconds (>= 1 on a machine that holds its rates)
};

// Errors name the field: a non-finite or negative value, params < 1, the roof or step time <= 0.
absl::StatusOr<StepFloor> ComputeStepFloor(const StepFloorInput& in);

// AdamW's achieved bytes per second: params x bytes_per_param / seconds. Errors: params < 1,
// seconds <= 0.
absl::StatusOr<double> AdamWBytesPerSecond(int64_t params, double seconds,
                                           double bytes_per_param = kAdamWBytesPerFp32Param);

}  // namespace accounting

#endif  // ACCOUNTING_STEP_FLOOR_H_
