// GPT-2 family configuration: the shape of the model (layers, heads, width, vocab, block size,
// bias, weight tying), named presets, validation with errors that name the value and the allowed
// range, and the conversion to accounting's GptShape.
//
// The vocabulary is padded (llm.c, nanoGPT): the embedding table and the LM head have
// padded_vocab rows so the big matmul has a friendly size; tokens and the loss use only the first
// `vocab` entries. gpt2: 50257 padded to 50304 (a multiple of 64 and 128).
#ifndef MODEL_GPT_CONFIG_H_
#define MODEL_GPT_CONFIG_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "accounting/gpt_flops.h"

namespace model {

struct GptConfig {
  std::string name = "custom";  // preset name, or "custom"
  int layers = 12;              // L
  int heads = 12;               // NH
  int width = 768;              // C (n_embd)
  int vocab = 50257;            // V: real tokens
  int padded_vocab = 50304;     // Vp >= V: rows of wte / the LM head
  int block = 1024;             // maxT: rows of wpe, longest sequence
  bool bias = true;             // false: no Linear or LayerNorm biases (nanoGPT bias=False)
  bool tie_weights = true;      // LM head shares wte (GPT-2); false adds an lm_head (Vp, C)

  int head_size() const { return width / heads; }
};

// Smallest multiple of `multiple` that is >= vocab.
int PadVocab(int vocab, int multiple = 64);

// Presets: gpt2 (124M), gpt2-medium (350M), gpt2-large (774M), gpt2-xl (1558M), and two
// small ones for tests and quick runs: test-tiny (L2 H2 C16 V60->64, block 16) and test-mini
// (L4 H4 C128 V1000->1024, block 256).
absl::StatusOr<GptConfig> GptPreset(std::string_view name);
std::vector<std::string> GptPresetNames();

// Sizes positive, heads divides width, padded_vocab >= vocab, parameter count fits int64.
absl::Status ValidateConfig(const GptConfig& config);
// ValidateConfig plus batch >= 1 and 1 <= seq <= block.
absl::Status ValidateRunShape(const GptConfig& config, int batch, int seq);

// Accounting's view of the model as built: vocab is the padded vocab (the matmuls and the
// parameter buffer use Vp rows). Untied weights are not expressible there: see NumParams.
accounting::GptShape ToGptShape(const GptConfig& config);

// Short description: "gpt2: L=12 H=12 C=768 V=50257(50304) block=1024 bias tied".
std::string DescribeConfig(const GptConfig& config);

}  // namespace model

#endif  // MODEL_GPT_CONFIG_H_
