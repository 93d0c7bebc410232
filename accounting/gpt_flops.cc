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
  return absl::OkStatus();
}

int64_t GptParamCount(const GptShape& s, bool include_position_embeddings) {
  const int64_t C = s.width;
  const int64_t b = s.bias ? 1 : 0;                   // bias=false drops every Linear and LayerNorm bias
  const int64_t ln = C + b * C;                       // LayerNorm weight (+ bias)
  const int64_t per_layer = ln                        // ln_1
                            + 3 * C * C + b * 3 * C   // attn.c_attn (qkv)
                            + C * C + b * C           // attn.c_proj
                            + ln                      // ln_2
                            + 4 * C * C + b * 4 * C   // mlp.c_fc
                            + 4 * C * C + b * C;      // mlp.c_proj
  int64_t n = s.vocab * C                             // wte (tied with lm_head)
              + s.layers * per_layer + ln;            // blocks + ln_f
  if (include_position_embeddings) n += s.block * C;  // wpe
  return n;
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
  return k * static_cast<double>(s.layers) * static_cast<double>(s.width) * static_cast<double>(seq);
}

double TrainFlopsPerToken(const GptShape& s, int64_t seq, AttentionConvention c) {
  const double n = static_cast<double>(GptParamCount(s, /*include_position_embeddings=*/false));
  return 6.0 * n + AttentionTrainFlopsPerToken(s, seq, c);
}

double ForwardFlopsPerToken(const GptShape& s, int64_t seq, AttentionConvention c) {
  const double n = static_cast<double>(GptParamCount(s, /*include_position_embeddings=*/false));
  return 2.0 * n + AttentionTrainFlopsPerToken(s, seq, c) / 3.0;
}

std::string StepFlops::Describe() const {
  return absl::StrFormat(
      "attention %s (%s), T=%d, recompute=%s: %.4g model FLOPs/step (MFU), %.4g hardware "
      "FLOPs/step (HFU), %d tokens/step",
      ConventionName(convention), ConventionFormula(convention), seq,
      recompute == Recompute::kFull ? "full" : "none", model_flops_per_step, hardware_flops_per_step, tokens);
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
  f.hardware_flops_per_token =
      f.model_flops_per_token +
      (recompute == Recompute::kFull ? ForwardFlopsPerToken(shape, seq, convention) : 0.0);
  f.model_flops_per_sequence = f.model_flops_per_token * static_cast<double>(seq);
  f.model_flops_per_step = f.model_flops_per_token * static_cast<double>(f.tokens);
  f.hardware_flops_per_step = f.hardware_flops_per_token * static_cast<double>(f.tokens);
  return f;
}

}  // namespace accounting
