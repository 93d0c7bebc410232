// The activation and scratch tensors the CPU model allocates once at creation, for a batch of
// B sequences of T tokens: what forward keeps for backward, the logits, and the few backward
// scratch buffers reused across layers (not llm.c's full mirror of the activations).
// Legend: L layers, B batch, T sequence, C width, NH heads, Vp padded vocab, QKV the qkv GEMM's
// width (3C with multi-head attention), F the MLP's hidden width, FC the up GEMM's (F with GeLU,
// 2F with SwiGLU). "ln" names the block's norms, LayerNorm or RMSNorm (RMSNorm keeps no mean:
// its *Mean tensors have size 0).
#ifndef MODEL_ACTIVATION_LAYOUT_H_
#define MODEL_ACTIVATION_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "accounting/gpt_flops.h"
#include "model/gpt_config.h"

namespace model {

enum class ActId : int {
  kEncoded,    // (B, T, C) embeddings: the first layer's residual input
  kLn1,        // (L, B, T, C)
  kLn1Mean,    // (L, B, T)
  kLn1Rstd,    // (L, B, T)
  kQkv,        // (L, B, T, QKV), q and k rotated when the positions are RoPE's
  kAtty,       // (L, B, T, C) attention output, heads concatenated
  kAtt,        // (L, B, NH, T, T) softmax scores (zeros above the diagonal)
  kResidual2,  // (L, B, T, C) after the attention residual add
  kLn2,        // (L, B, T, C)
  kLn2Mean,    // (L, B, T)
  kLn2Rstd,    // (L, B, T)
  kFch,        // (L, B, T, FC) the up GEMM's output; GeLU: its derivative there after Forward
  kFchGelu,    // (L, B, T, F) the activation's output (GeLU's, or SwiGLU's silu(gate) * up)
  kResidual3,  // (L, B, T, C) block output
  kLnf,        // (B, T, C)
  kLnfMean,    // (B, T)
  kLnfRstd,    // (B, T)
  kLogits,     // (B, T, Vp) logits after forward; dlogits after backward
  kLse,        // (B, T) log-sum-exp per row
  kLosses,     // (B, T)
  kProj,       // (B, T, C) scratch: attn / MLP projection output before the residual add
  kDResidual,  // (B, T, C) backward: gradient of the residual stream
  kDBtc,       // (B, T, C) backward scratch: d ln_f, d ln, d atty
  kDFch,       // (B, T, FC) backward scratch
  kDQkv,       // (B, T, QKV) backward scratch
  kDAtt,       // (B, NH, T, T) backward scratch
  kDFchAct,    // (B, T, F) backward scratch: SwiGLU's output gradient (size 0 with GeLU, done in place)
};
inline constexpr int kNumActivationTensors = 27;

struct ActivationTensor {
  ActId id;
  std::string name;
  int64_t size = 0;  // elements
};

// How many layers' copies of a per-layer tensor the model keeps for the backward: L, or 1 (a
// scratch slot the forward writes layer after layer and the backward recomputes) where the
// recompute level recomputes it: the MLP's activation output (kActivation), the attention's
// scores and output (kAttention), every per-layer tensor but the block outputs, each the next
// block's input (kBlock). Tensors that are not per-layer: 1.
int64_t ActivationLayersKept(ActId id, const GptConfig& config, accounting::Recompute recompute);

// Indexed by ActId. `config` valid, B >= 1, 1 <= T <= block.
std::vector<ActivationTensor> CpuActivationTensors(const GptConfig& config, int64_t B, int64_t T,
                                                   accounting::Recompute recompute = accounting::Recompute::kNone);
int64_t CpuActivationElements(const GptConfig& config, int64_t B, int64_t T,
                              accounting::Recompute recompute = accounting::Recompute::kNone);

}  // namespace model

#endif  // MODEL_ACTIVATION_LAYOUT_H_
