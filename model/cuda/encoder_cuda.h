// Token + position embedding on the GPU (llm.c's encoder_forward / encoder_backward); the CPU
// twin is model/encoder_cpu.h. T is the storage type of activations and parameter copies
// (float or Bf16); gradients are fp32.
// Legend: B batch, T sequence, C channels, Vp padded vocab, maxT block size.
#ifndef MODEL_CUDA_ENCODER_CUDA_H_
#define MODEL_CUDA_ENCODER_CUDA_H_

#include <cstdint>

namespace model {
namespace cuda {

// out: (B, T, C) = wte[inp[b,t]] + wpe[t]; inp: (B, T) device token ids in [0, Vp);
// wte: (Vp, C); wpe: (maxT, C), or nullptr where there is no position table (RoPE): out = wte[inp].
template <typename S>
void encoder_forward(S* out, const int32_t* inp, const S* wte, const S* wpe, int64_t B, int64_t T, int64_t C);

// dwte: fp32 (Vp, C) += rows of dout scattered by token (atomicAdd: the order of additions to
// a repeated token's row is not fixed); dwpe: fp32 (maxT, C) += sums over the batch (skipped
// when nullptr);
// dout: (B, T, C); inp: (B, T) device token ids.
template <typename S>
void encoder_backward(float* dwte, float* dwpe, const S* dout, const int32_t* inp, int64_t B, int64_t T,
                      int64_t C);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_ENCODER_CUDA_H_
