#include "model/gpt_decoder.h"

#include "absl/strings/str_cat.h"

namespace model {
namespace {

absl::Status CheckTokens(absl::Span<const int32_t> tokens, size_t want, int vocab) {
  if (tokens.size() != want) {
    return absl::InvalidArgumentError(absl::StrCat(tokens.size(), " tokens given, ", want, " expected"));
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] < 0 || tokens[i] >= vocab) {
      return absl::InvalidArgumentError(
          absl::StrCat("token ", tokens[i], " at index ", i, " is outside [0, vocab=", vocab, ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckDecoderShape(const GptConfig& config, int B, int max_prompt, int max_positions) {
  if (auto st = ValidateConfig(config); !st.ok()) return st;
  if (B < 1) return absl::InvalidArgumentError(absl::StrCat("B=", B, " streams: must be >= 1"));
  if (max_positions < 1 || max_positions > config.block) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_positions=", max_positions, ": must be in [1, block=", config.block, "]"));
  }
  if (max_prompt < 1 || max_prompt > max_positions) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_prompt=", max_prompt, ": must be in [1, max_positions=", max_positions, "]"));
  }
  return absl::OkStatus();
}

absl::Status CheckPrefillInput(absl::Span<const int32_t> tokens, int P, int B, int position, int max_prompt,
                               int vocab) {
  if (position != 0) {
    return absl::FailedPreconditionError(absl::StrCat("Prefill at position ", position, ": Reset first"));
  }
  if (P < 1 || P > max_prompt) {
    return absl::InvalidArgumentError(
        absl::StrCat("prompt of ", P, " tokens: must be in [1, ", max_prompt, "]"));
  }
  return CheckTokens(tokens, static_cast<size_t>(B) * P, vocab);
}

absl::Status CheckStepInput(absl::Span<const int32_t> tokens, int B, int position, int max_positions,
                            int vocab) {
  if (position >= max_positions) {
    return absl::OutOfRangeError(
        absl::StrCat("the cache is full: ", position, " of ", max_positions, " positions"));
  }
  return CheckTokens(tokens, static_cast<size_t>(B), vocab);
}

}  // namespace model
