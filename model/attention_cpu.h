// Causal multi-head self-attention on the CPU (llm.c's attention_forward / attention_backward),
// with the QK^T and AV products as GEMMs per (batch, head) read straight out of the qkv buffer
// (strided, no copies). The GEMMs compute the full T x T score matrix (the masked half is
// computed, then zeroed), so the counted FLOPs follow accounting's kFull convention:
// forward 2 x 2*T*T*hs per (b, h), backward 4 x 2*T*T*hs; 12*L*C*T per token in all.
// Grouped-query attention (Ainslie et al. 2023; Llama 2 70B and Llama 3): NKV K/V heads, each
// shared by a group of NH / NKV consecutive query heads; NKV = NH is multi-head attention. The
// K/V heads' gradients sum over their group's query heads, in a fixed order.
// Legend: B batch, T sequence, C channels, NH query heads, NKV K/V heads, hs = C/NH head size,
// QKV = C + 2 * NKV * hs (q | k | v per row; 3C for multi-head).
#ifndef MODEL_ATTENTION_CPU_H_
#define MODEL_ATTENTION_CPU_H_

#include <cstdint>

namespace model {

// out: (B, T, C) heads concatenated; att: (B, NH, T, T) softmax(q k^T / sqrt(hs)) with the
// causal mask, zeros above the diagonal, saved for backward; inp: (B, T, QKV) = q | k | v.
// NKV <= 0: NH.
template <typename F>
void attention_forward(F* out, F* att, const F* inp, int64_t B, int64_t T, int64_t C, int64_t NH,
                       int64_t NKV = 0);

// dinp: (B, T, QKV) OVERWRITTEN with dq | dk | dv; datt: (B, NH, T, T) scratch;
// dout: (B, T, C); inp: (B, T, QKV); att: (B, NH, T, T) from the forward pass.
template <typename F>
void attention_backward(F* dinp, F* datt, const F* dout, const F* inp, const F* att, int64_t B, int64_t T,
                        int64_t C, int64_t NH, int64_t NKV = 0);

}  // namespace model

#endif  // MODEL_ATTENTION_CPU_H_
