// RMSNorm on the CPU (Zhang and Sennrich 2019; Llama's norm): rows normalised by their root mean
// square, then scaled by a weight; no mean is subtracted and there is no bias. eps = 1e-5, as
// Llama 2 and 3 use (rmsnorm_math.h, shared with the CUDA kernels).
//   y = x * rstd * w,   rstd = 1 / sqrt(mean(x^2) + eps)
//   dx = rstd * (w dy - x * rstd^2 * mean(w dy x)),   dw = sum over rows of x * rstd * dy
// Legend: B batch, T sequence, C channels.
#ifndef MODEL_RMSNORM_CPU_H_
#define MODEL_RMSNORM_CPU_H_

#include <cstdint>

#include "model/grad_write.h"

namespace model {

// out: (B, T, C); rstd: (B, T) saved for backward; inp: (B, T, C); weight: (C).
template <typename F>
void rmsnorm_forward(F* out, F* rstd, const F* inp, const F* weight, int64_t B, int64_t T, int64_t C);

// The residual add and the RMSNorm after it in one pass over the rows, as
// residual_layernorm_forward (layernorm_cpu.h): residual = inp1 + inp2, then rmsnorm_forward of
// it. Bit-identical to the two ops one after the other.
template <typename F>
void residual_rmsnorm_forward(F* residual, F* out, F* rstd, const F* inp1, const F* inp2, const F* weight,
                              int64_t B, int64_t T, int64_t C);

// dinp: (B, T, C) += (the residual stream's gradient); dweight: (C) += (written over with
// GradWrite::kOverwrite); dout, inp: (B, T, C); weight: (C); rstd: (B, T) from the forward pass.
template <typename F>
void rmsnorm_backward(F* dinp, F* dweight, const F* dout, const F* inp, const F* weight, const F* rstd, int64_t B,
                      int64_t T, int64_t C, GradWrite write = GradWrite::kAccumulate);

}  // namespace model

#endif  // MODEL_RMSNORM_CPU_H_
