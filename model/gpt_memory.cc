// Training memory estimate from the parameter and activation layouts.
#include "model/gpt_memory.h"

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
  return absl::StrFormat("%d params: params %s, grads %s, AdamW m+v %s, activations %s: total %s", num_params,
                         FormatBytes(params_bytes), FormatBytes(grads_bytes), FormatBytes(adamw_bytes),
                         FormatBytes(activations_bytes), FormatBytes(total_bytes()));
}

absl::StatusOr<MemoryEstimate> EstimateTrainingMemory(const GptConfig& config, int batch, int seq,
                                                      int64_t bytes_per_element) {
  if (auto st = ValidateRunShape(config, batch, seq); !st.ok()) return st;
  const ParamLayout layout(config);
  MemoryEstimate m;
  m.num_params = layout.num_params();
  m.params_bytes = m.num_params * bytes_per_element;
  m.grads_bytes = m.params_bytes;
  m.adamw_bytes = 2 * m.params_bytes;
  m.activations_bytes = CpuActivationElements(config, batch, seq) * bytes_per_element;
  return m;
}

}  // namespace model
