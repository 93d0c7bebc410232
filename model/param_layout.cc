// Offsets, shapes and weight-decay flags of the parameter buffer.
#include "model/param_layout.h"

namespace model {

ParamLayout::ParamLayout(const GptConfig& c) {
  const int64_t L = c.layers, C = c.width, Vp = c.padded_vocab, F = c.hidden();
  const int64_t QKV = c.qkv_width(), FC = c.fc_width();
  const int64_t b = c.bias ? 1 : 0;
  const int64_t nb = c.norm == NormKind::kRmsNorm ? 0 : b;  // a norm's bias: LayerNorm's, with biases
  const int64_t maxT = c.positions == PositionKind::kLearned ? c.block : 0;  // RoPE: no table
  struct Spec {
    ParamId id;
    const char* name;
    std::vector<int64_t> shape;
    bool decay;
  };
  const std::vector<Spec> specs = {
      {ParamId::kWte, "wte", {Vp, C}, true},
      {ParamId::kWpe, "wpe", {maxT, C}, true},
      {ParamId::kLn1w, "ln1w", {L, C}, false},
      {ParamId::kLn1b, "ln1b", {L, nb * C}, false},
      {ParamId::kQkvw, "qkvw", {L, QKV, C}, true},
      {ParamId::kQkvb, "qkvb", {L, b * QKV}, false},
      {ParamId::kAttprojw, "attprojw", {L, C, C}, true},
      {ParamId::kAttprojb, "attprojb", {L, b * C}, false},
      {ParamId::kLn2w, "ln2w", {L, C}, false},
      {ParamId::kLn2b, "ln2b", {L, nb * C}, false},
      {ParamId::kFcw, "fcw", {L, FC, C}, true},
      {ParamId::kFcb, "fcb", {L, b * FC}, false},
      {ParamId::kFcprojw, "fcprojw", {L, C, F}, true},
      {ParamId::kFcprojb, "fcprojb", {L, b * C}, false},
      {ParamId::kLnfw, "lnfw", {C}, false},
      {ParamId::kLnfb, "lnfb", {nb * C}, false},
      {ParamId::kLmHead, "lm_head", {c.tie_weights ? 0 : Vp, C}, true},
  };
  int64_t offset = 0;
  for (const Spec& s : specs) {
    ParamTensorInfo t;
    t.id = s.id;
    t.name = s.name;
    t.shape = s.shape;
    t.size = 1;
    for (int64_t d : s.shape) t.size *= d;
    t.offset = offset;
    t.weight_decay = s.decay;
    offset += t.size;
    tensors_.push_back(std::move(t));
  }
  num_params_ = offset;
}

int64_t ParamLayout::matmul_params() const {
  int64_t n = 0;
  for (ParamId id : {ParamId::kQkvw, ParamId::kAttprojw, ParamId::kFcw, ParamId::kFcprojw}) {
    n += tensor(id).size;
  }
  // The LM head: wte when tied, lm_head otherwise.
  n += tensor(ParamId::kLmHead).size == 0 ? tensor(ParamId::kWte).size : tensor(ParamId::kLmHead).size;
  return n;
}

}  // namespace model
