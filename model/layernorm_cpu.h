// LayerNorm on the CPU (llm.c's layernorm_forward / layernorm_backward), eps = 1e-5 as in
// GPT-2 and PyTorch's default. Rows are normalised over C with the biased variance.
// Legend: B batch, T sequence, C channels.
#ifndef MODEL_LAYERNORM_CPU_H_
#define MODEL_LAYERNORM_CPU_H_

#include <cstdint>

#include "model/grad_write.h"

namespace model {

// out: (B, T, C); mean, rstd: (B, T) saved for backward; inp: (B, T, C);
// weight: (C); bias: (C) or nullptr.
template <typename F>
void layernorm_forward(F* out, F* mean, F* rstd, const F* inp, const F* weight, const F* bias, int64_t B,
                       int64_t T, int64_t C);

// The residual add and the LayerNorm after it in one pass over the rows: residual = inp1 + inp2
// (B, T, C), written (the stream carries it on), and out, mean, rstd = layernorm_forward of it,
// computed from the row while it is still in L1 instead of reading the whole residual back.
// Bit-identical to residual_forward followed by layernorm_forward.
template <typename F>
void residual_layernorm_forward(F* residual, F* out, F* mean, F* rstd, const F* inp1, const F* inp2,
                                const F* weight, const F* bias, int64_t B, int64_t T, int64_t C);

// dinp: (B, T, C) +=; dweight: (C) +=; dbias: (C) += (skipped when nullptr); with
// GradWrite::kOverwrite, dweight and dbias are written over (dinp, the residual stream's
// gradient, is always added to);
// dout, inp: (B, T, C); weight: (C); mean, rstd: (B, T) from the forward pass.
template <typename F>
void layernorm_backward(F* dinp, F* dweight, F* dbias, const F* dout, const F* inp, const F* weight,
                        const F* mean, const F* rstd, int64_t B, int64_t T, int64_t C,
                        GradWrite write = GradWrite::kAccumulate);

}  // namespace model

#endif  // MODEL_LAYERNORM_CPU_H_
