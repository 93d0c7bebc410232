// RMSNorm on the GPU (Zhang and Sennrich 2019; Llama's norm): each row divided by its root mean
// square, then scaled by a weight; no mean, no bias. eps = kRmsNormEps (model/rmsnorm_math.h,
// shared with the CPU twin model/rmsnorm_cpu.h), fp32 arithmetic whatever the storage type S
// (float or Bf16).
//   y = x * rstd * w,   rstd = 1 / sqrt(mean(x^2) + eps)
//   dx += rstd * (w dy - x * rstd^2 * mean(w dy x)),   dw += sum over rows of x * rstd * dy
// Legend: B batch, T sequence, C channels.
#ifndef MODEL_CUDA_RMSNORM_CUDA_H_
#define MODEL_CUDA_RMSNORM_CUDA_H_

#include <cstdint>

namespace model {
namespace cuda {

// out: (B, T, C); rstd: fp32 (B, T) saved for backward; inp: (B, T, C); weight: (C).
// One warp per row.
template <typename S>
void rmsnorm_forward(S* out, float* rstd, const S* inp, const S* weight, int64_t B, int64_t T, int64_t C);

// dinp: (B, T, C) +=; dweight: fp32 (C) +=; dout, inp: (B, T, C); weight: (C); rstd: fp32 (B, T)
// from the forward pass. The input gradient takes one warp per row; the weight gradient is an
// ordered column sum (OrderedColumnReduceLaunch: no atomics, the same bits on every run).
template <typename S>
void rmsnorm_backward(S* dinp, float* dweight, const S* dout, const S* inp, const S* weight,
                      const float* rstd, int64_t B, int64_t T, int64_t C);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_RMSNORM_CUDA_H_
