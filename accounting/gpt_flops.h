// Parameter count and FLOPs per token / sequence / step of a decoder-only transformer (GPT-2, and
// the Llama family through GptShape's switches).
//
// Training FLOPs per token (nanoGPT's estimate_mfu, PaLM appendix B, torchtitan):
//     6N + 12 * L * H * hd * T     (kFull; = 12*L*C*T when H*hd = C, as in every preset here)
// N (FlopParamCount) excludes the position table (wpe does no matmul) and an untied input
// embedding (a lookup); the tied LM head is in N through wte. Grouped-query attention changes N
// (smaller K and V projections) but not the attention term, which is per query head.
// 6N: forward 2N (one multiply-add per weight per token), backward 4N (input and weight grads).
// The attention term covers QK^T and AV: forward 2 matmuls x 2 FLOPs x H*hd x T per token per
// layer = 4LCT, times 3 for fwd+bwd = 12LCT. kCausalHalved (Megatron-LM, llm.c) counts only the
// causal half: 6LCT. torchtitan counts it full.
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

// A decoder-only transformer as accounting sees it. GPT-2 by default; the switches after `bias`
// make the Llama family (model/gpt_config.h has the presets).
struct GptShape {
  int64_t layers = 0;  // L
  int64_t heads = 0;   // H (query heads)
  int64_t width = 0;   // C (n_embd)
  int64_t vocab = 0;   // V
  int64_t block = 0;   // block_size: the longest sequence (and the position table's length)
  bool bias = true;    // false: no Linear or LayerNorm biases (nanoGPT bias=False)
  int64_t kv_heads = 0;    // K/V heads (grouped-query attention); 0: heads (multi-head)
  int64_t mlp_hidden = 0;  // F, the MLP's hidden width; 0: 4C
  bool swiglu = false;     // SwiGLU MLP: three matrices (gate, up: C x F; down: F x C); else GeLU, two
  bool rmsnorm = false;    // RMSNorm (a weight per norm, never a bias); else LayerNorm
  bool learned_positions = true;  // a (block, C) position table (wpe); false: RoPE, no table
  bool tied = true;               // the LM head is wte; false: its own (V, C) matrix

  int64_t head_size() const { return width / heads; }
  int64_t kv_head_count() const { return kv_heads > 0 ? kv_heads : heads; }
  int64_t hidden() const { return mlp_hidden > 0 ? mlp_hidden : 4 * width; }
};

// All sizes positive, heads divides width, kv_heads divides heads. Error names the field and value.
absl::Status ValidateGptShape(const GptShape& shape);

// Every parameter: wte V*C, wpe block*C (learned positions only), per layer: norm 1 (C, + C of
// LayerNorm bias), qkv (C x (C + 2*KV*hd), + bias), attn proj (C*C, + C), norm 2, the MLP (GeLU:
// C x F up and F x C down, + F and C biases; SwiGLU: C x F gate and up, F x C down); final norm;
// an untied LM head V*C. bias=false removes every Linear and LayerNorm bias.
// include_position_embeddings=false leaves wpe out.
int64_t GptParamCount(const GptShape& shape, bool include_position_embeddings);

// N of the FLOP formulas (torchtitan's rule): every parameter but the lookup tables that do no
// matmul: the position table and, when untied, the input embedding (a tied wte is the LM head,
// so it counts). The norms (a rounding) count. GPT-2: GptParamCount(shape, false).
int64_t FlopParamCount(const GptShape& shape);

enum class AttentionConvention {
  kFull,          // 12*L*C*T per token: PaLM, nanoGPT, torchtitan
  kCausalHalved,  // 6*L*C*T per token: Megatron-LM, llm.c (only the causal half of QK^T and AV)
};
// Short names: "full", "causal-halved".
const std::string& ConventionName(AttentionConvention convention);
// The term as a formula, for printing: "12*L*C*T" or "6*L*C*T".
const std::string& ConventionFormula(AttentionConvention convention);

// Attention FLOPs per token for training (fwd + bwd): 12*L*H*hd*T or half, with T = seq.
double AttentionTrainFlopsPerToken(const GptShape& shape, int64_t seq, AttentionConvention c);
// 6N + attention term, N = FlopParamCount. seq: tokens per sequence actually run (<= block).
double TrainFlopsPerToken(const GptShape& shape, int64_t seq, AttentionConvention c);
// 2N + attention term / 3.
double ForwardFlopsPerToken(const GptShape& shape, int64_t seq, AttentionConvention c);

// Activation recomputation: what the hardware does again in the backward, which HFU counts and
// MFU does not (the model needs the same FLOPs either way).
enum class Recompute {
  kNone,
  kFull,        // one whole extra forward pass (the textbook's 8N: 2N + the attention's third)
  kActivation,  // the MLP's activation (GeLU, or SwiGLU's product) from its kept input: no matmul
  kAttention,   // the attention core (Megatron-LM's selective) from the kept q, k, v: its forward
                // matmuls QK^T and AV, the attention term's third
  kBlock,       // each block's forward from its kept input (Megatron-LM's full, llm.c's -r 2 and
                // more): 2 * the blocks' parameters + the attention term's third; the embeddings,
                // the final norm and the LM head are not recomputed
};
// "none", "full", "activation", "attention", "block".
const char* RecomputeName(Recompute recompute);
// The FLOPs per token a recompute level adds to the hardware's count.
double RecomputeFlopsPerToken(const GptShape& shape, int64_t seq, AttentionConvention c, Recompute recompute);
// The blocks' parameters (every layer's: norms, attention, MLP, their biases), L * per layer.
int64_t BlockParamCount(const GptShape& shape);

// FLOPs of one optimizer step, for MFU (model) and HFU (hardware).
struct StepFlops {
  int64_t seq = 0;                      // T actually used
  int64_t tokens = 0;                   // batch * seq * grad_accum: one rank's tokens per step
  double model_flops_per_token = 0;     // TrainFlopsPerToken
  double hardware_flops_per_token = 0;  // + RecomputeFlopsPerToken of the recompute level
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
