// Rotary position embeddings (RoPE; Su et al. 2021, as Meta's Llama and torchtitan apply them) on
// the CPU: in every head of q and k, the pair of channels (2i, 2i+1) at position t is rotated by
// the angle t * theta^(-2i/hd). The pairs are adjacent channels (Meta's and torchtitan's complex
// view), not the half-split pairs (i, i + hd/2) of Hugging Face's rotate_half; the tables and the
// rotation are shared with the CUDA kernels (rope_math.h).
//   forward:  x'[2i] = x[2i] cos - x[2i+1] sin,   x'[2i+1] = x[2i] sin + x[2i+1] cos
//   backward: the transposed rotation (by -angle) of the gradient.
// Legend: B batch, T sequence, NH query heads, NKV K/V heads, hd head size, QKV = (NH + 2 NKV) hd.
#ifndef MODEL_ROPE_CPU_H_
#define MODEL_ROPE_CPU_H_

#include <cstdint>

namespace model {

// cos, sin: (T, hd / 2) of t * theta^(-2i/hd), computed in double, rounded once.
template <typename F>
void rope_table(F* cos, F* sin, int64_t T, int64_t hd, double theta);

// qkv: (B, T, QKV) = q (NH heads) | k (NKV heads) | v; q and k rotated in place, v untouched.
template <typename F>
void rope_forward(F* qkv, const F* cos, const F* sin, int64_t B, int64_t T, int64_t NH, int64_t NKV, int64_t hd);

// dqkv: (B, T, QKV), the gradient with respect to the rotated q and k: rotated back in place (the
// gradient with respect to q and k before the rotation); dv untouched.
template <typename F>
void rope_backward(F* dqkv, const F* cos, const F* sin, int64_t B, int64_t T, int64_t NH, int64_t NKV,
                   int64_t hd);

}  // namespace model

#endif  // MODEL_ROPE_CPU_H_
