// Parameter count and FLOPs per token / sequence / step of a GPT-2-style transformer.
//
// Training FLOPs per token (nanoGPT's estimate_mfu, PaLM appendix B):
//     6N + 12 * L * C * T          (kFull; 12*L*H*Q*T with Q = C/H is the same number)
// N excludes position embeddings (wpe does no matmul); the tied LM head is in N through wte.
// 6N: forward 2N (one multiply-add per weight per token), backward 4N (input and weight grads).
// The attention term covers QK^T and AV: forward 2 matmuls x 2 FLOPs x C x T per token per layer
// = 4LCT, times 3 for fwd+bwd = 12LCT. kCausalHalved (llm.c) counts only the causal half: 6LCT.
// Forward only: 2N + attention/3. Full activation recompute adds one forward pass: the hardware
// does it (HFU counts it), the model does not need it (MFU does not).
// What the formula ignores: LayerNorm, softmax, GELU, residual adds, the optimizer, and the
// embedding lookups; it slightly over-counts the first layer's input gradient. So MFU from it
// is a model-work figure, not an exact count of issued FLOPs.
// T is the sequence length actually run (crop): nanoGPT uses block_size even when the input is
// shorter, which over-counts; here every function takes the real `seq`.
#ifndef ACCOUNTING_GPT_FLOPS_H_
#define ACCOUNTING_GPT_FLOPS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace accounting {

struct GptShape {
  int64_t layers = 0;  // L
  int64_t heads = 0;   // H
  int64_t width = 0;   // C (n_embd)
  int64_t vocab = 0;   // V
  int64_t block = 0;   // block_size: the position table's length
  bool bias = true;    // false: no Linear or LayerNorm biases (nanoGPT bias=False)
};

// All fields positive, heads divides width. Error names the field and value.
absl::Status ValidateGptShape(const GptShape& shape);

// GPT-2 layout, tied LM head: wte V*C, wpe block*C, per layer ln1 (2C), qkv (3C*C + 3C),
// attn proj (C*C + C), ln2 (2C), fc (4C*C + 4C), fc proj (4C*C + C); final ln (2C).
// bias=false removes every Linear and LayerNorm bias.
int64_t GptParamCount(const GptShape& shape, bool include_position_embeddings);

enum class AttentionConvention {
  kFull,          // 12*L*C*T per token: PaLM, nanoGPT
  kCausalHalved,  // 6*L*C*T per token: llm.c (only the causal half of QK^T and AV)
};
// Short names: "full", "causal-halved".
const std::string& ConventionName(AttentionConvention convention);
// The term as a formula, for printing: "12*L*C*T" or "6*L*C*T".
const std::string& ConventionFormula(AttentionConvention convention);

// Attention FLOPs per token for training (fwd + bwd): 12LCT or 6LCT with T = seq.
double AttentionTrainFlopsPerToken(const GptShape& shape, int64_t seq, AttentionConvention c);
// 6N + attention term, N without wpe. seq: tokens per sequence actually run (<= block).
double TrainFlopsPerToken(const GptShape& shape, int64_t seq, AttentionConvention c);
// 2N + attention term / 3.
double ForwardFlopsPerToken(const GptShape& shape, int64_t seq, AttentionConvention c);

enum class Recompute { kNone, kFull };  // kFull: one extra forward pass per step

// FLOPs of one optimizer step, for MFU (model) and HFU (hardware).
struct StepFlops {
  int64_t seq = 0;                      // T actually used
  int64_t tokens = 0;                   // batch * seq * grad_accum: one rank's tokens per step
  double model_flops_per_token = 0;     // TrainFlopsPerToken
  double hardware_flops_per_token = 0;  // + ForwardFlopsPerToken when recompute is kFull
  double model_flops_per_sequence = 0;
  double model_flops_per_step = 0;     // for MFU
  double hardware_flops_per_step = 0;  // for HFU
  AttentionConvention convention = AttentionConvention::kFull;
  Recompute recompute = Recompute::kNone;
  std::string Describe() const;  // names the convention, T, and recompute
};

// batch: sequences per micro-step on one rank; grad_accum: micro-steps per optimizer step.
// Errors: invalid shape, seq outside [1, block], batch or grad_accum < 1.
absl::StatusOr<StepFlops> GptStepFlops(const GptShape& shape, int64_t seq, int64_t batch, int64_t grad_accum,
                                       AttentionConvention convention,
                                       Recompute recompute = Recompute::kNone);

}  // namespace accounting

#endif  // ACCOUNTING_GPT_FLOPS_H_
