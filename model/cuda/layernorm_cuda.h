// LayerNorm on the GPU (llm.c's layernorm_forward / layernorm_backward), eps = 1e-5, biased
// variance, fp32 arithmetic whatever the storage type S (float or Bf16). CPU twin:
// model/layernorm_cpu.h. Legend: B batch, T sequence, C channels.
#ifndef MODEL_CUDA_LAYERNORM_CUDA_H_
#define MODEL_CUDA_LAYERNORM_CUDA_H_

#include <cstdint>

namespace model {
namespace cuda {

// out: (B, T, C); mean, rstd: fp32 (B, T) saved for backward; inp: (B, T, C);
// weight: (C); bias: (C) or nullptr. One warp per row.
template <typename S>
void layernorm_forward(S* out, float* mean, float* rstd, const S* inp, const S* weight, const S* bias,
                       int64_t B, int64_t T, int64_t C);

// dinp: (B, T, C) +=; dweight: fp32 (C) +=; dbias: fp32 (C) += (skipped when nullptr);
// dout, inp: (B, T, C); weight: (C); mean, rstd: fp32 (B, T) from the forward pass.
// The input gradient takes one warp per row; the parameter gradients are column sums split
// over row ranges that meet with atomicAdd.
template <typename S>
void layernorm_backward(S* dinp, float* dweight, float* dbias, const S* dout, const S* inp, const S* weight,
                        const float* mean, const float* rstd, int64_t B, int64_t T, int64_t C);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_LAYERNORM_CUDA_H_
