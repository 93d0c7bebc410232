// AdamW's bytes per second measured alone, at start-up: the model's own update (adamw_cpu.h) over
// four arrays (p, g, m, v) of DRAM size, best of a few passes. The step prediction
// (accounting/step_prediction.h) counts the step's AdamW at this rate: its traffic is in place
// (read p, g, m, v; write p, m, v, 28 bytes a parameter, 30 with the bf16 copy), which neither
// STREAM copy nor triad is, so neither of them predicts it (on a Zen 4 VM the step's AdamW moved
// 105-190% of the triad's bytes/s).
#ifndef MACRO_ADAMW_PROBE_H_
#define MACRO_ADAMW_PROBE_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace macro {

struct AdamWProbe {
  double bytes_per_s = 0;  // the best pass: params x bytes_per_param / seconds
  int64_t params = 0;      // elements per array
  double bytes_per_param = 0;
  int passes = 0;
};

// Arrays of bytes_per_array bytes each (4 of them; whole floats), `passes` timed passes after one
// untimed one; bf16_copy: the mixed-precision update, which also writes the weights' bf16 copy.
// Errors: bytes_per_array < 4096, passes < 1, an allocation that fails, a non-finite result.
absl::StatusOr<AdamWProbe> MeasureAdamW(int64_t bytes_per_array, int passes, bool bf16_copy);

}  // namespace macro

#endif  // MACRO_ADAMW_PROBE_H_
