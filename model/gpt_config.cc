// GPT-2 presets and configuration checks.
#include "model/gpt_config.h"

#include <cmath>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "accounting/validate.h"

namespace model {
namespace {

// The Llama family's switches (Meta's Llama 2 and 3, torchtitan's llama3 configs): RMSNorm,
// RoPE, a SwiGLU MLP of hidden width F, K/V heads, no biases.
GptConfig Llama(const char* name, int L, int C, int H, int KV, int F, int V, bool tied, double theta, int block) {
  GptConfig c{name, L, H, C, V, PadVocab(V), block};
  c.bias = false;
  c.tie_weights = tied;
  c.norm = NormKind::kRmsNorm;
  c.positions = PositionKind::kRope;
  c.rope_theta = theta;
  c.mlp = MlpKind::kSwiglu;
  c.mlp_hidden = F;
  c.kv_heads = KV;
  return c;
}

std::vector<GptConfig> Presets() {
  // GPT-2: name, layers, heads, width, vocab, padded_vocab, block (biases and tied weights by default).
  return {
      {"gpt2", 12, 12, 768, 50257, 50304, 1024},
      {"gpt2-medium", 24, 16, 1024, 50257, 50304, 1024},
      {"gpt2-large", 36, 20, 1280, 50257, 50304, 1024},
      {"gpt2-xl", 48, 25, 1600, 50257, 50304, 1024},
      {"test-tiny", 2, 2, 16, 60, 64, 16},
      {"test-mini", 4, 4, 128, 1000, 1024, 256},
      // Llama: name, L, C, H, KV, F, V, tied, rope_theta, block.
      Llama("llama3-8b", 32, 4096, 32, 8, 14336, 128256, /*tied=*/false, 500000, 8192),
      Llama("llama3.2-1b", 16, 2048, 32, 8, 8192, 128256, /*tied=*/true, 500000, 8192),
      Llama("llama-124m", 12, 768, 12, 4, 2048, 32000, /*tied=*/false, 10000, 1024),
      Llama("llama-tiny", 2, 32, 4, 2, 64, 64, /*tied=*/false, 10000, 16),
  };
}

}  // namespace

const char* NormName(NormKind norm) { return norm == NormKind::kRmsNorm ? "rmsnorm" : "layernorm"; }
const char* PositionName(PositionKind positions) { return positions == PositionKind::kRope ? "rope" : "learned"; }
const char* MlpName(MlpKind mlp) { return mlp == MlpKind::kSwiglu ? "swiglu" : "gelu"; }

int PadVocab(int vocab, int multiple) {
  if (multiple <= 1) return vocab;
  return (vocab + multiple - 1) / multiple * multiple;
}

absl::StatusOr<GptConfig> GptPreset(std::string_view name) {
  for (const GptConfig& c : Presets()) {
    if (c.name == name) return c;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown model preset '", std::string(name),
                                                 "': allowed are ", absl::StrJoin(GptPresetNames(), ", ")));
}

std::vector<std::string> GptPresetNames() {
  std::vector<std::string> names;
  for (const GptConfig& c : Presets()) names.push_back(c.name);
  return names;
}

absl::Status ValidateConfig(const GptConfig& c) {
  for (auto st :
       {accounting::RequireAtLeastOne("layers", c.layers), accounting::RequireAtLeastOne("heads", c.heads),
        accounting::RequireAtLeastOne("width", c.width), accounting::RequireAtLeastOne("vocab", c.vocab),
        accounting::RequireAtLeastOne("padded_vocab", c.padded_vocab),
        accounting::RequireAtLeastOne("block", c.block)}) {
    if (!st.ok()) return st;
  }
  // Each size at most 2^26, so that the derived widths (hidden = 4C, the SwiGLU up GEMM's 2F, the
  // qkv GEMM's C + 2 * kv_width) stay inside int; the parameter check below bounds their products.
  constexpr int kMaxDim = 1 << 26;
  for (auto [name, value] : {std::pair{"layers", c.layers}, std::pair{"heads", c.heads}, std::pair{"width", c.width},
                             std::pair{"vocab", c.vocab}, std::pair{"padded_vocab", c.padded_vocab},
                             std::pair{"block", c.block}, std::pair{"kv_heads", c.kv_heads},
                             std::pair{"mlp_hidden", c.mlp_hidden}}) {
    if (value > kMaxDim) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, "=", value, " is too large: allowed up to ", kMaxDim, " (2^26)"));
    }
  }
  if (c.width % c.heads != 0) {
    return absl::InvalidArgumentError(absl::StrCat("heads=", c.heads, " does not divide width=", c.width,
                                                   ": width must be a multiple of heads"));
  }
  if (c.kv_heads < 0 || c.mlp_hidden < 0) {
    return absl::InvalidArgumentError(absl::StrCat("kv_heads=", c.kv_heads, ", mlp_hidden=", c.mlp_hidden,
                                                   ": must be >= 1 (0: the default, heads and 4 * width)"));
  }
  if (c.heads % c.kv_head_count() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("kv_heads=", c.kv_head_count(), " does not divide heads=",
                                                   c.heads, ": each K/V head serves a whole group of query heads"));
  }
  if (c.positions == PositionKind::kRope && (c.head_size() % 2 != 0 || !(c.rope_theta > 1) ||
                                             !std::isfinite(c.rope_theta))) {
    return absl::InvalidArgumentError(absl::StrCat("RoPE needs an even head size (width / heads = ", c.head_size(),
                                                   ") and a finite rope_theta > 1 (", c.rope_theta, ")"));
  }
  if (c.padded_vocab < c.vocab) {
    return absl::InvalidArgumentError(absl::StrCat("padded_vocab=", c.padded_vocab,
                                                   " is smaller than vocab=", c.vocab, ": must be >= vocab"));
  }
  // Keep every buffer size well inside int64 (and the parameter count far below 2^62).
  const double C = c.width, F = c.hidden();
  const double params = double(c.padded_vocab) * C * (c.tie_weights ? 1 : 2) + double(c.block) * C +
                        double(c.layers) * (2 * C * C + 2 * C * double(c.kv_width()) + 3 * C * F + 5 * C + 3 * F);
  if (params > 1e15) {
    return absl::InvalidArgumentError(absl::StrCat("config ", DescribeConfig(c), " has ~", params,
                                                   " parameters: too large (allowed up to 1e15)"));
  }
  return absl::OkStatus();
}

absl::Status ValidateRunShape(const GptConfig& c, int batch, int seq) {
  if (auto st = ValidateConfig(c); !st.ok()) return st;
  if (batch < 1) {
    return absl::InvalidArgumentError(absl::StrCat("batch=", batch, " is invalid: must be >= 1"));
  }
  if (seq < 1 || seq > c.block) {
    return absl::InvalidArgumentError(absl::StrCat("seq=", seq, " is out of range: must be in [1, ", c.block,
                                                   "] (block size of ", c.name, ")"));
  }
  // Keep every activation size (model/activation_layout.h: up to L*B*T*4C and L*B*NH*T*T
  // elements, counted in int64) well inside int64, as the parameter count above.
  const double bt = double(batch) * seq, C = c.width, F = c.hidden();
  const double activations = bt * (double(c.layers) * (8 * C + 4 * F + 4 + double(c.heads) * seq) + 7 * C +
                                   4 * F + c.padded_vocab + 5 + double(c.heads) * seq);
  if (activations > 1e15) {
    return absl::InvalidArgumentError(absl::StrCat("batch=", batch, " x seq=", seq, " of ", DescribeConfig(c),
                                                   " needs ~", activations,
                                                   " activation elements: too large (allowed up to 1e15)"));
  }
  return absl::OkStatus();
}

bool IsGpt2Family(const GptConfig& c) {
  return c.norm == NormKind::kLayerNorm && c.positions == PositionKind::kLearned && c.mlp == MlpKind::kGelu &&
         c.hidden() == 4 * c.width && c.kv_head_count() == c.heads;
}

accounting::GptShape ToGptShape(const GptConfig& c) {
  accounting::GptShape s{c.layers, c.heads, c.width, /*vocab=*/c.padded_vocab, c.block, c.bias};
  s.kv_heads = c.kv_head_count();
  s.mlp_hidden = c.hidden();
  s.swiglu = c.mlp == MlpKind::kSwiglu;
  s.rmsnorm = c.norm == NormKind::kRmsNorm;
  s.learned_positions = c.positions == PositionKind::kLearned;
  s.tied = c.tie_weights;
  return s;
}

std::string DescribeConfig(const GptConfig& c) {
  std::string d = absl::StrCat(c.name, ": L=", c.layers, " H=", c.heads, " C=", c.width, " V=", c.vocab, "(",
                               c.padded_vocab, ") block=", c.block, c.bias ? " bias" : " no-bias",
                               c.tie_weights ? " tied" : " untied");
  // GPT-2's switches say nothing more (its descriptions stay as they were); any other says all.
  if (c.kv_head_count() != c.heads || c.hidden() != 4 * c.width || c.norm != NormKind::kLayerNorm ||
      c.positions != PositionKind::kLearned || c.mlp != MlpKind::kGelu) {
    absl::StrAppend(&d, " KV=", c.kv_head_count(), " F=", c.hidden(), " ", NormName(c.norm), " ",
                    PositionName(c.positions),
                    c.positions == PositionKind::kRope ? absl::StrCat("(", c.rope_theta, ")") : "", " ",
                    MlpName(c.mlp));
  }
  return d;
}

}  // namespace model
