// Token + position embedding on the CPU (llm.c's encoder_forward / encoder_backward).
// Legend: B batch, T sequence, C channels, Vp padded vocab, maxT block size.
#ifndef MODEL_ENCODER_CPU_H_
#define MODEL_ENCODER_CPU_H_

#include <cstdint>

#include "model/grad_write.h"

namespace model {

// out: (B, T, C) = wte[inp[b,t]] + wpe[t]; inp: (B, T) token ids in [0, Vp);
// wte: (Vp, C); wpe: (maxT, C), T <= maxT, or nullptr (no position table: out = wte[inp[b,t]]).
template <typename F>
void encoder_forward(F* out, const int32_t* inp, const F* wte, const F* wpe, int64_t B, int64_t T, int64_t C);

// dwte: (Vp, C) += scattered rows of dout; dwpe: (maxT, C) += sums over the batch, or, with
// wpe_write = GradWrite::kOverwrite, its first T rows written over (the caller owns rows T..maxT); dwpe
// nullptr: no position table;
// dout: (B, T, C); inp: (B, T). Parallel over channel blocks: no two threads touch one
// element, and every element sums its contributions in (b, t) order. dwte is always added to:
// a token's rows are a scatter (when tied, the LM head's gradient GEMM wrote dwte first).
template <typename F>
void encoder_backward(F* dwte, F* dwpe, const F* dout, const int32_t* inp, int64_t B, int64_t T, int64_t C,
                      GradWrite wpe_write = GradWrite::kAccumulate);

}  // namespace model

#endif  // MODEL_ENCODER_CPU_H_
