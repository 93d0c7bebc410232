// The activation and scratch tensors the CPU model allocates once at creation, for a batch of
// B sequences of T tokens: what forward keeps for backward, the logits, and the few backward
// scratch buffers reused across layers (not llm.c's full mirror of the activations).
// Legend: L layers, B batch, T sequence, C width, NH heads, Vp padded vocab.
#ifndef MODEL_ACTIVATION_LAYOUT_H_
#define MODEL_ACTIVATION_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "model/gpt_config.h"

namespace model {

enum class ActId : int {
  kEncoded,    // (B, T, C) embeddings: the first layer's residual input
  kLn1,        // (L, B, T, C)
  kLn1Mean,    // (L, B, T)
  kLn1Rstd,    // (L, B, T)
  kQkv,        // (L, B, T, 3C)
  kAtty,       // (L, B, T, C) attention output, heads concatenated
  kAtt,        // (L, B, NH, T, T) softmax scores (zeros above the diagonal)
  kResidual2,  // (L, B, T, C) after the attention residual add
  kLn2,        // (L, B, T, C)
  kLn2Mean,    // (L, B, T)
  kLn2Rstd,    // (L, B, T)
  kFch,        // (L, B, T, 4C) MLP hidden before GeLU; after Forward, GeLU's derivative there
  kFchGelu,    // (L, B, T, 4C) after GeLU
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
  kDFch,       // (B, T, 4C) backward scratch
  kDQkv,       // (B, T, 3C) backward scratch
  kDAtt,       // (B, NH, T, T) backward scratch
};
inline constexpr int kNumActivationTensors = 26;

struct ActivationTensor {
  ActId id;
  std::string name;
  int64_t size = 0;  // elements
};

// Indexed by ActId. `config` valid, B >= 1, 1 <= T <= block.
std::vector<ActivationTensor> CpuActivationTensors(const GptConfig& config, int64_t B, int64_t T);
int64_t CpuActivationElements(const GptConfig& config, int64_t B, int64_t T);

}  // namespace model

#endif  // MODEL_ACTIVATION_LAYOUT_H_
