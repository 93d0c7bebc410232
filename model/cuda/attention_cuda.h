// Causal self-attention on the GPU, llm.c's cuBLAS formulation made block-causal: q, k, v
// permuted out of the qkv buffer into (B, NH, T, hs); the score and value products as
// strided-batched cuBLASLt GEMMs over the B*NH heads, one per block of `block` query rows, each
// with only the keys up to its block's end; a fused causal softmax (one warp per row, online
// max/sum, zeros written above the diagonal up to the block's end); the output permuted back.
// At T = 1024 and block 256 that is 62.5% of the full T x T work and traffic
// (launch_config.h: AttentionWorkFraction). The FLOPs reported are those issued; the CPU twin
// (model/attention_cpu.h) computes, and reports, the full T x T (accounting's kFull), which
// equals ours when T <= block.
// Grouped-query attention (NKV < NH K/V heads, each shared by the NH / NKV consecutive query
// heads h with h / (NH / NKV) = its index, as the CPU twin and cuDNN): the permute expands each
// K/V head to its group's query heads, so the GEMMs and the softmax run exactly as for NKV = NH;
// the backward's permute sums dk and dv over the group in fp32, in head order, and rounds once
// (README.md, "Grouped-query attention", says why this and not a GEMM per group member).
// Legend: B batch, T sequence, C channels, NH query heads, NKV K/V heads, hs = C/NH head size,
// QKV = C + 2 * NKV * hs (3C when NKV = NH), N = B*NH.
#ifndef MODEL_CUDA_ATTENTION_CUDA_H_
#define MODEL_CUDA_ATTENTION_CUDA_H_

#include <cstdint>

#include "model/cuda/gemm.h"
#include "model/cuda/launch_config.h"

namespace model {
namespace cuda {

// out: (B, T, C) heads concatenated; qkvr: (3, B, NH, T, hs) q | k | v permuted, saved for
// backward; att: (B, NH, T, T) softmax(q k^T / sqrt(hs)) with the causal mask, saved for
// backward: row t holds its probabilities in columns 0..t and zeros up to its block's end
// (AttentionRowLimit); the columns after that are never written. vaccum: (B, NH, T, hs)
// scratch; inp: (B, T, QKV) = q | k | v, or null when qkvr already holds them (permuted by an
// earlier call: the attention recompute). qkvr holds K and V expanded to NH heads. tf32: fp32
// GEMMs may use TF32 tensor cores. block: query rows per block (0: kAttentionBlock).
template <typename S>
void attention_forward(S* out, S* qkvr, S* att, S* vaccum, const S* inp, int64_t B, int64_t T, int64_t C,
                       int64_t NH, int64_t NKV, GemmRunner* gemm, bool tf32, int64_t block = 0);

// dinp: (B, T, QKV) OVERWRITTEN with dq | dk | dv (dk, dv summed over each K/V head's group);
// dqkvr: (3, B, NH, T, hs) scratch;
// datt: (B, NH, T, T) scratch; dvaccum: (B, NH, T, hs) scratch; dout: (B, T, C);
// qkvr, att: from attention_forward.
// block: as given to attention_forward.
template <typename S>
void attention_backward(S* dinp, S* dqkvr, S* datt, S* dvaccum, const S* dout, const S* qkvr, const S* att,
                        int64_t B, int64_t T, int64_t C, int64_t NH, int64_t NKV, GemmRunner* gemm, bool tf32,
                        int64_t block = 0);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_ATTENTION_CUDA_H_
