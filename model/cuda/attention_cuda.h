// Causal multi-head self-attention on the GPU, llm.c's cuBLAS formulation: q, k, v permuted out
// of the qkv buffer into (B, NH, T, hs), the score and value products as strided-batched
// cuBLASLt GEMMs over the B*NH heads, a fused causal softmax (one warp per row, online
// max/sum, zeros written above the diagonal), and the output permuted back. The GEMMs compute
// the full T x T score matrix, so the FLOPs reported follow accounting's kFull convention, as
// the CPU twin (model/attention_cpu.h) reports them.
// Legend: B batch, T sequence, C channels, NH heads, hs = C/NH head size, N = B*NH.
#ifndef MODEL_CUDA_ATTENTION_CUDA_H_
#define MODEL_CUDA_ATTENTION_CUDA_H_

#include <cstdint>

#include "model/cuda/gemm.h"

namespace model {
namespace cuda {

// out: (B, T, C) heads concatenated; qkvr: (3, B, NH, T, hs) q | k | v permuted, saved for
// backward; att: (B, NH, T, T) softmax(q k^T / sqrt(hs)) with the causal mask, zeros above the
// diagonal, saved for backward; vaccum: (B, NH, T, hs) scratch; inp: (B, T, 3C) = q | k | v.
// tf32: fp32 GEMMs may use TF32 tensor cores.
template <typename S>
void attention_forward(S* out, S* qkvr, S* att, S* vaccum, const S* inp, int64_t B, int64_t T,
                       int64_t C, int64_t NH, GemmRunner* gemm, bool tf32);

// dinp: (B, T, 3C) OVERWRITTEN with dq | dk | dv; dqkvr: (3, B, NH, T, hs) scratch;
// datt: (B, NH, T, T) scratch; dvaccum: (B, NH, T, hs) scratch; dout: (B, T, C);
// qkvr, att: from attention_forward.
template <typename S>
void attention_backward(S* dinp, S* dqkvr, S* datt, S* dvaccum, const S* dout, const S* qkvr,
                        const S* att, int64_t B, int64_t T, int64_t C, int64_t NH,
                        GemmRunner* gemm, bool tf32);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_ATTENTION_CUDA_H_
