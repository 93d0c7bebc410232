// Training memory estimate from the parameter and activation layouts.
#include "model/gpt_memory.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "model/activation_layout.h"
#include "model/param_layout.h"

namespace model {

std::string FormatBytes(int64_t b) {
  const double x = static_cast<double>(b);
  if (x >= 1e9) return absl::StrFormat("%.2f GB", x / 1e9);
  if (x >= 1e6) return absl::StrFormat("%.1f MB", x / 1e6);
  if (x >= 1e3) return absl::StrFormat("%.1f kB", x / 1e3);
  return absl::StrFormat("%d B", b);
}

std::string MemoryEstimate::Describe() const {
  return absl::StrFormat("%d params: params %s, grads %s, AdamW m+v %s, activations %s%s: total %s", num_params,
                         FormatBytes(params_bytes), FormatBytes(grads_bytes), FormatBytes(adamw_bytes),
                         FormatBytes(activations_bytes),
                         bf16_bytes > 0 ? absl::StrCat(", bf16 copies ", FormatBytes(bf16_bytes)) : "",
                         FormatBytes(total_bytes()));
}

absl::StatusOr<MemoryEstimate> EstimateCpuTrainingMemory(const GptConfig& config, int batch, int seq,
                                                         bool bf16_gemms, accounting::Recompute recompute) {
  absl::StatusOr<MemoryEstimate> m = EstimateTrainingMemory(config, batch, seq, 4, recompute);
  if (!m.ok() || !bf16_gemms) return m;
  const int64_t BT = static_cast<int64_t>(batch) * seq;
  // As CpuGpt::Create allocates them: the weights' copy, per layer the inputs of qkv, attproj, fc
  // (C each) and fcproj (F), lnf's (C), and the largest output gradient (B*T rows).
  const int64_t C = config.width, F = config.hidden();
  m->bf16_bytes = 2 * (m->num_params + config.layers * BT * (3 * C + F) + BT * C +
                       BT * std::max<int64_t>({config.padded_vocab, config.fc_width(), config.qkv_width()}));
  return m;
}

absl::StatusOr<MemoryEstimate> EstimateTrainingMemory(const GptConfig& config, int batch, int seq,
                                                      int64_t bytes_per_element, accounting::Recompute recompute) {
  if (auto st = ValidateRunShape(config, batch, seq); !st.ok()) return st;
  const ParamLayout layout(config);
  MemoryEstimate m;
  m.num_params = layout.num_params();
  m.params_bytes = m.num_params * bytes_per_element;
  m.grads_bytes = m.params_bytes;
  m.adamw_bytes = 2 * m.params_bytes;
  m.activations_bytes = CpuActivationElements(config, batch, seq, recompute) * bytes_per_element;
  return m;
}

std::string DecodeMemoryEstimate::Describe() const {
  return absl::StrFormat("weights %s, KV cache %s, logits %s, activations %s: total %s",
                         FormatBytes(weights_bytes), FormatBytes(kv_cache_bytes), FormatBytes(logits_bytes),
                         FormatBytes(activations_bytes), FormatBytes(total_bytes()));
}

DecodeMemoryEstimate EstimateDecodeMemory(const GptConfig& config, int64_t batch, int64_t max_prompt,
                                          int64_t max_positions, int64_t bytes_per_element) {
  // As CpuDecoder::Create allocates (cpu_decoder.cc); fp32 activations.
  const int64_t C = config.width, NH = config.heads, L = config.layers, Vp = config.padded_vocab;
  const int64_t QKV = config.qkv_width(), FC = config.fc_width(), F = config.hidden();
  const int64_t rows = batch * max_prompt;
  const int64_t n = ParamLayout(config).num_params();
  DecodeMemoryEstimate m;
  m.weights_bytes = n * bytes_per_element;
  // Keys and values of the K/V heads only (grouped-query attention: KV * hd, not C, per position).
  m.kv_cache_bytes = 2 * L * batch * max_positions * config.kv_width() * bytes_per_element;
  m.logits_bytes = batch * Vp * 4;
  // x, ln, atty, proj (C each), qkv (C + 2 * KV * hd), fch (F, or 2F for SwiGLU's gate | up),
  // fch_gelu (F), mean and rstd (1 each); the prompt's attention (NH x P x P per stream), the
  // scores (NH x positions), the last rows and RoPE's cos and sin tables (positions x hd / 2 each).
  const int64_t rope = config.positions == PositionKind::kRope ? max_positions * config.head_size() : 0;
  m.activations_bytes = 4 * (rows * (4 * C + QKV + FC + F + 2) + batch * NH * max_prompt * max_prompt +
                             batch * NH * max_positions + batch * C + rope);
  return m;
}

}  // namespace model
