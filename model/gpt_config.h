// One configurable decoder-only transformer, after Megatron-LM's TransformerConfig: the shape
// (layers, heads, width, vocab, block size) and the switches that make a family (normalization,
// positions, MLP, K/V heads, biases, tied embeddings). GPT-2 and the Llama family are presets of
// it, a few lines each; every op (LayerNorm or RMSNorm, learned positions or RoPE, GeLU or
// SwiGLU, attention with any number of K/V heads) is written once per device and reads this.
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

enum class NormKind { kLayerNorm, kRmsNorm };
enum class PositionKind { kLearned, kRope };
enum class MlpKind { kGelu, kSwiglu };
// "layernorm" | "rmsnorm", "learned" | "rope", "gelu" | "swiglu".
const char* NormName(NormKind norm);
const char* PositionName(PositionKind positions);
const char* MlpName(MlpKind mlp);

struct GptConfig {
  std::string name = "custom";  // preset name, or "custom"
  int layers = 12;              // L
  int heads = 12;               // NH: query heads
  int width = 768;              // C (n_embd)
  int vocab = 50257;            // V: real tokens
  int padded_vocab = 50304;     // Vp >= V: rows of wte / the LM head
  int block = 1024;             // maxT: the longest sequence (rows of wpe with learned positions)
  bool bias = true;             // false: no Linear or LayerNorm biases (nanoGPT bias=False)
  bool tie_weights = true;      // LM head shares wte (GPT-2); false adds an lm_head (Vp, C)
  // The family's switches; GPT-2's by default.
  NormKind norm = NormKind::kLayerNorm;       // RMSNorm has a weight and no bias
  PositionKind positions = PositionKind::kLearned;
  double rope_theta = 10000.0;                // RoPE's base (positions = rope)
  MlpKind mlp = MlpKind::kGelu;               // SwiGLU: silu(x W_gate) * (x W_up), then W_down
  int mlp_hidden = 0;                         // F, the MLP's hidden width; 0: 4C
  int kv_heads = 0;                           // K/V heads (grouped-query attention); 0: NH

  int head_size() const { return width / heads; }
  int kv_head_count() const { return kv_heads > 0 ? kv_heads : heads; }
  int hidden() const { return mlp_hidden > 0 ? mlp_hidden : 4 * width; }
  int kv_width() const { return kv_head_count() * head_size(); }  // K's (and V's) width
  int qkv_width() const { return width + 2 * kv_width(); }         // the qkv GEMM's output: q | k | v
  int fc_width() const { return mlp == MlpKind::kSwiglu ? 2 * hidden() : hidden(); }  // up GEMM's output
};

// Smallest multiple of `multiple` that is >= vocab.
int PadVocab(int vocab, int multiple = 64);

// Presets: gpt2 (124M), gpt2-medium (350M), gpt2-large (774M), gpt2-xl (1558M), and two
// small ones for tests and quick runs: test-tiny (L2 H2 C16 V60->64, block 16) and test-mini
// (L4 H4 C128 V1000->1024, block 256). The Llama family (RMSNorm, RoPE, SwiGLU, GQA, no biases):
// llama3-8b (L32 C4096 H32 KV8 F14336 V128256, untied, rope_theta 500000, block 8192),
// llama3.2-1b (L16 C2048 H32 KV8 F8192 V128256, tied, theta 500000, block 8192), llama-124m
// (L12 C768 H12 KV4 F2048 V32000, untied, block 1024: the CPU-sized one beside gpt2) and
// llama-tiny (L2 C32 H4 KV2 F64 V64, untied, block 16: for tests).
absl::StatusOr<GptConfig> GptPreset(std::string_view name);
std::vector<std::string> GptPresetNames();

// Sizes positive, heads divides width, kv_heads divides heads, an even head size for RoPE, a
// finite rope_theta > 1, padded_vocab >= vocab, parameter count fits int64.
absl::Status ValidateConfig(const GptConfig& config);
// ValidateConfig plus batch >= 1 and 1 <= seq <= block.
absl::Status ValidateRunShape(const GptConfig& config, int batch, int seq);

// True for GPT-2's switches (LayerNorm, learned positions, GeLU of 4C, as many K/V heads as query
// heads), whatever the shape, bias and tying.
bool IsGpt2Family(const GptConfig& config);

// Accounting's view of the model as built: vocab is the padded vocab (the matmuls and the
// parameter buffer use Vp rows). Untied weights are not expressible there: see NumParams.
accounting::GptShape ToGptShape(const GptConfig& config);

// Short description: "gpt2: L=12 H=12 C=768 V=50257(50304) block=1024 bias tied"; a config that
// differs from GPT-2's switches adds them: "llama-124m: L=12 H=12 C=768 V=32000(32000) block=1024
// no-bias untied KV=4 F=2048 rmsnorm rope(10000) swiglu".
std::string DescribeConfig(const GptConfig& config);

}  // namespace model

#endif  // MODEL_GPT_CONFIG_H_
