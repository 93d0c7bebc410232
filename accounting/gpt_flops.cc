// GPT-2 parameter count and training / forward FLOPs per token, sequence and step.
#include "accounting/gpt_flops.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace accounting {

absl::Status ValidateGptShape(const GptShape& s) {
  auto positive = [](const char* name, int64_t v) -> absl::Status {
    if (v > 0) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(name, "=", v, " is invalid: must be >= 1"));
  };
  for (auto st : {positive("layers", s.layers), positive("heads", s.heads), positive("width", s.width),
                  positive("vocab", s.vocab), positive("block", s.block)}) {
    if (!st.ok()) return st;
  }
  if (s.width % s.heads != 0) {
    return absl::InvalidArgumentError(absl::StrCat("heads=", s.heads, " does not divide width=", s.width,
                                                   ": width must be a multiple of heads"));
  }
  if (s.kv_heads < 0 || s.mlp_hidden < 0) {
    return absl::InvalidArgumentError(absl::StrCat("kv_heads=", s.kv_heads, ", mlp_hidden=", s.mlp_hidden,
                                                   " are invalid: must be >= 1 (0: the default)"));
  }
  if (s.heads % s.kv_head_count() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("kv_heads=", s.kv_heads, " does not divide heads=", s.heads,
                                                   ": each K/V head serves a whole group of query heads"));
  }
  return absl::OkStatus();
}

int64_t GptParamCount(const GptShape& s, bool include_position_embeddings) {
  const int64_t C = s.width, F = s.hidden(), kv = s.kv_head_count() * s.head_size();
  const int64_t b = s.bias ? 1 : 0;  // bias=false drops every Linear and LayerNorm bias
  const int64_t norm = C + (s.rmsnorm ? 0 : b * C);  // weight (+ a LayerNorm's bias)
  const int64_t mlp = s.swiglu ? 3 * C * F + b * (2 * F + C)  // gate, up (C x F each), down (F x C)
                               : 2 * C * F + b * (F + C);     // c_fc (C x F), c_proj (F x C)
  const int64_t per_layer = norm                                // norm 1
                            + C * (C + 2 * kv) + b * (C + 2 * kv)  // q, k, v
                            + C * C + b * C                     // attention projection
                            + norm                              // norm 2
                            + mlp;
  int64_t n = s.vocab * C                 // wte (the LM head too when tied)
              + s.layers * per_layer + norm;  // blocks + the final norm
  if (!s.tied) n += s.vocab * C;           // lm_head
  if (include_position_embeddings && s.learned_positions) n += s.block * C;  // wpe
  return n;
}

int64_t BlockParamCount(const GptShape& s) {
  GptShape no_layers = s;
  no_layers.layers = 0;  // what is left: the embeddings, the final norm, an untied head
  return GptParamCount(s, false) - GptParamCount(no_layers, false);
}

const char* RecomputeName(Recompute r) {
  switch (r) {
    case Recompute::kNone: return "none";
    case Recompute::kFull: return "full";
    case Recompute::kActivation: return "activation";
    case Recompute::kAttention: return "attention";
    case Recompute::kBlock: return "block";
  }
  return "?";
}

double RecomputeFlopsPerToken(const GptShape& s, int64_t seq, AttentionConvention c, Recompute r) {
  switch (r) {
    case Recompute::kNone:
    case Recompute::kActivation: return 0;
    case Recompute::kFull: return ForwardFlopsPerToken(s, seq, c);
    case Recompute::kAttention: return AttentionTrainFlopsPerToken(s, seq, c) / 3;
    case Recompute::kBlock:
      return 2.0 * static_cast<double>(BlockParamCount(s)) + AttentionTrainFlopsPerToken(s, seq, c) / 3;
  }
  return 0;
}

int64_t FlopParamCount(const GptShape& s) {
  const int64_t n = GptParamCount(s, /*include_position_embeddings=*/false);
  return s.tied ? n : n - s.vocab * s.width;  // an untied wte is a lookup
}

const std::string& ConventionName(AttentionConvention c) {
  static const std::string* full = new std::string("full");
  static const std::string* halved = new std::string("causal-halved");
  return c == AttentionConvention::kFull ? *full : *halved;
}

const std::string& ConventionFormula(AttentionConvention c) {
  static const std::string* full = new std::string("12*L*C*T");
  static const std::string* halved = new std::string("6*L*C*T");
  return c == AttentionConvention::kFull ? *full : *halved;
}

double AttentionTrainFlopsPerToken(const GptShape& s, int64_t seq, AttentionConvention c) {
  const double k = c == AttentionConvention::kFull ? 12.0 : 6.0;
  const double query_width = static_cast<double>(s.heads) * static_cast<double>(s.head_size());  // H*hd
  return k * static_cast<double>(s.layers) * query_width * static_cast<double>(seq);
}

double TrainFlopsPerToken(const GptShape& s, int64_t seq, AttentionConvention c) {
  const double n = static_cast<double>(FlopParamCount(s));
  return 6.0 * n + AttentionTrainFlopsPerToken(s, seq, c);
}

double ForwardFlopsPerToken(const GptShape& s, int64_t seq, AttentionConvention c) {
  const double n = static_cast<double>(FlopParamCount(s));
  return 2.0 * n + AttentionTrainFlopsPerToken(s, seq, c) / 3.0;
}

std::string StepFlops::Describe() const {
  return absl::StrFormat(
      "attention %s (%s), T=%d, recompute=%s: %.4g model FLOPs/step (MFU), %.4g hardware "
      "FLOPs/step (HFU), %d tokens/step",
      ConventionName(convention), ConventionFormula(convention), seq,
      RecomputeName(recompute), model_flops_per_step, hardware_flops_per_step, tokens);
}

absl::StatusOr<StepFlops> GptStepFlops(const GptShape& shape, int64_t seq, int64_t batch, int64_t grad_accum,
                                       AttentionConvention convention, Recompute recompute) {
  if (auto st = ValidateGptShape(shape); !st.ok()) return st;
  if (seq < 1 || seq > shape.block) {
    return absl::InvalidArgumentError(
        absl::StrCat("seq=", seq, " is out of range: must be in [1, ", shape.block, "] (block size)"));
  }
  if (batch < 1) {
    return absl::InvalidArgumentError(absl::StrCat("batch=", batch, " is invalid: must be >= 1"));
  }
  if (grad_accum < 1) {
    return absl::InvalidArgumentError(absl::StrCat("grad_accum=", grad_accum, " is invalid: must be >= 1"));
  }
  StepFlops f;
  f.seq = seq;
  f.tokens = batch * seq * grad_accum;
  f.convention = convention;
  f.recompute = recompute;
  f.model_flops_per_token = TrainFlopsPerToken(shape, seq, convention);
  f.hardware_flops_per_token = f.model_flops_per_token + RecomputeFlopsPerToken(shape, seq, convention, recompute);
  f.model_flops_per_sequence = f.model_flops_per_token * static_cast<double>(seq);
  f.model_flops_per_step = f.model_flops_per_token * static_cast<double>(f.tokens);
  f.hardware_flops_per_step = f.hardware_flops_per_token * static_cast<double>(f.tokens);
  return f;
}

}  // namespace accounting
