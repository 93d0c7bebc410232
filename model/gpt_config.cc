// GPT-2 presets and configuration checks.
#include "model/gpt_config.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "accounting/validate.h"

namespace model {
namespace {

std::vector<GptConfig> Presets() {
  // name, layers, heads, width, vocab, padded_vocab, block (biases and tied weights by default).
  return {
      {"gpt2", 12, 12, 768, 50257, 50304, 1024},
      {"gpt2-medium", 24, 16, 1024, 50257, 50304, 1024},
      {"gpt2-large", 36, 20, 1280, 50257, 50304, 1024},
      {"gpt2-xl", 48, 25, 1600, 50257, 50304, 1024},
      {"test-tiny", 2, 2, 16, 60, 64, 16},
      {"test-mini", 4, 4, 128, 1000, 1024, 256},
  };
}

}  // namespace

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
  if (c.width % c.heads != 0) {
    return absl::InvalidArgumentError(absl::StrCat("heads=", c.heads, " does not divide width=", c.width,
                                                   ": width must be a multiple of heads"));
  }
  if (c.padded_vocab < c.vocab) {
    return absl::InvalidArgumentError(absl::StrCat("padded_vocab=", c.padded_vocab,
                                                   " is smaller than vocab=", c.vocab, ": must be >= vocab"));
  }
  // Keep every buffer size well inside int64 (and the parameter count far below 2^62).
  const double C = c.width;
  const double params = double(c.padded_vocab) * C * (c.tie_weights ? 1 : 2) + double(c.block) * C +
                        double(c.layers) * (12 * C * C + 13 * C);
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
  const double bt = double(batch) * seq, C = c.width;
  const double activations = bt * (double(c.layers) * (16 * C + 4 + double(c.heads) * seq) + 11 * C +
                                   c.padded_vocab + 5 + double(c.heads) * seq);
  if (activations > 1e15) {
    return absl::InvalidArgumentError(absl::StrCat("batch=", batch, " x seq=", seq, " of ", DescribeConfig(c),
                                                   " needs ~", activations,
                                                   " activation elements: too large (allowed up to 1e15)"));
  }
  return absl::OkStatus();
}

accounting::GptShape ToGptShape(const GptConfig& c) {
  return accounting::GptShape{c.layers, c.heads, c.width, /*vocab=*/c.padded_vocab, c.block, c.bias};
}

std::string DescribeConfig(const GptConfig& c) {
  return absl::StrCat(c.name, ": L=", c.layers, " H=", c.heads, " C=", c.width, " V=", c.vocab, "(",
                      c.padded_vocab, ") block=", c.block, c.bias ? " bias" : " no-bias",
                      c.tie_weights ? " tied" : " untied");
}

}  // namespace model
