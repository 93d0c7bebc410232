// The parameter buffer: every weight of the model in ONE contiguous array with a named layout,
// in llm.c's order (wte, wpe, then each per-layer tensor stacked over layers, then ln_f, and an
// lm_head only when weights are untied). Gradients and the AdamW moments use the same layout,
// so DDP can all-reduce one buffer and the optimizer makes one pass.
//
// Legend: L layers, C width, Vp padded vocab, maxT block size, QKV = C + 2 * KV * hd (q, then k,
// then v rows), F the MLP's hidden width, FC = F (GeLU) or 2F (SwiGLU: the gate's F rows, then
// the up projection's F).
//   wte (Vp, C)  wpe (maxT, C) only with learned positions
//   ln1w, ln1b (L, C)  qkvw (L, QKV, C)  qkvb (L, QKV)  attprojw (L, C, C)  attprojb (L, C)
//   ln2w, ln2b (L, C)  fcw (L, FC, C)  fcb (L, FC)  fcprojw (L, C, F)  fcprojb (L, C)
//   lnfw, lnfb (C)     lm_head (Vp, C) only if untied
// GPT-2: QKV = 3C, F = 4C, FC = 4C. The ln* tensors are the norms' (RMSNorm: a weight, no bias).
// With bias=false, or RMSNorm for the norms' biases, the bias tensors have size 0 (and null
// pointers). Linear weights are stored (out_features, in_features), as PyTorch's nn.Linear and
// llm.c do.
#ifndef MODEL_PARAM_LAYOUT_H_
#define MODEL_PARAM_LAYOUT_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/gpt_config.h"

namespace model {

enum class ParamId : int {
  kWte,
  kWpe,
  kLn1w,
  kLn1b,
  kQkvw,
  kQkvb,
  kAttprojw,
  kAttprojb,
  kLn2w,
  kLn2b,
  kFcw,
  kFcb,
  kFcprojw,
  kFcprojb,
  kLnfw,
  kLnfb,
  kLmHead,
};
inline constexpr int kNumParamTensors = 17;

struct ParamTensorInfo {
  ParamId id;
  std::string name;            // "wte", "qkvw", ...
  int64_t offset = 0;          // elements from the buffer start
  int64_t size = 0;            // elements (0: absent: a bias with bias=false, untied lm_head)
  std::vector<int64_t> shape;  // e.g. {L, 3C, C}
  bool weight_decay = false;   // AdamW decays matrices (embeddings, Linear weights) only
};

class ParamLayout {
 public:
  // `config` must pass ValidateConfig.
  explicit ParamLayout(const GptConfig& config);

  int64_t num_params() const { return num_params_; }
  // All kNumParamTensors tensors in buffer order, absent ones with size 0.
  const std::vector<ParamTensorInfo>& tensors() const { return tensors_; }
  const ParamTensorInfo& tensor(ParamId id) const { return tensors_[static_cast<int>(id)]; }
  // Elements that feed a matmul (qkv, attn proj, fc, fc proj weights and the LM head): the
  // parameters the 6N rule counts exactly; the rest (biases, LayerNorms, wpe) do no matmul.
  int64_t matmul_params() const;

 private:
  std::vector<ParamTensorInfo> tensors_;
  int64_t num_params_ = 0;
};

// Typed pointers into a buffer with this layout; absent tensors are nullptr. lm_head points at
// wte when weights are tied.
template <typename F>
struct ParamPointers {
  F* wte;       // (Vp, C)
  F* wpe;       // (maxT, C); null with RoPE
  F* ln1w;      // (L, C)
  F* ln1b;      // (L, C)
  F* qkvw;      // (L, QKV, C)
  F* qkvb;      // (L, QKV)
  F* attprojw;  // (L, C, C)
  F* attprojb;  // (L, C)
  F* ln2w;      // (L, C)
  F* ln2b;      // (L, C)
  F* fcw;       // (L, FC, C)
  F* fcb;       // (L, FC)
  F* fcprojw;   // (L, C, F)
  F* fcprojb;   // (L, C)
  F* lnfw;      // (C)
  F* lnfb;      // (C)
  F* lm_head;   // (Vp, C)
};

// A per-layer slice of a stacked parameter tensor (base + offset), or nullptr for an absent one
// (bias=false).
template <typename F>
F* Slice(F* base, int64_t offset) {
  return base == nullptr ? nullptr : base + offset;
}

template <typename F>
ParamPointers<F> PointParams(const ParamLayout& layout, F* base) {
  auto at = [&](ParamId id) -> F* {
    const ParamTensorInfo& t = layout.tensor(id);
    return t.size == 0 ? nullptr : base + t.offset;
  };
  ParamPointers<F> p;
  p.wte = at(ParamId::kWte);
  p.wpe = at(ParamId::kWpe);
  p.ln1w = at(ParamId::kLn1w);
  p.ln1b = at(ParamId::kLn1b);
  p.qkvw = at(ParamId::kQkvw);
  p.qkvb = at(ParamId::kQkvb);
  p.attprojw = at(ParamId::kAttprojw);
  p.attprojb = at(ParamId::kAttprojb);
  p.ln2w = at(ParamId::kLn2w);
  p.ln2b = at(ParamId::kLn2b);
  p.fcw = at(ParamId::kFcw);
  p.fcb = at(ParamId::kFcb);
  p.fcprojw = at(ParamId::kFcprojw);
  p.fcprojb = at(ParamId::kFcprojb);
  p.lnfw = at(ParamId::kLnfw);
  p.lnfb = at(ParamId::kLnfb);
  p.lm_head = layout.tensor(ParamId::kLmHead).size == 0 ? p.wte : at(ParamId::kLmHead);
  return p;
}

}  // namespace model

#endif  // MODEL_PARAM_LAYOUT_H_
