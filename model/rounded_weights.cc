// Parameters with a weight format's rounding in fp32 storage (rounded_weights.h).
#include "model/rounded_weights.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "model/bf16.h"
#include "model/param_layout.h"
#include "model/quantize_int8.h"

namespace model {

std::vector<LinearMatrix> LinearMatrices(const GptConfig& config) {
  const ParamLayout layout(config);
  const int64_t C = config.width;
  auto of = [&](const char* name, ParamId id, int64_t cols) {
    const ParamTensorInfo& t = layout.tensor(id);
    return LinearMatrix{name, t.offset, t.size / cols, cols};
  };
  std::vector<LinearMatrix> m = {of("qkvw", ParamId::kQkvw, C), of("attprojw", ParamId::kAttprojw, C),
                                 of("fcw", ParamId::kFcw, C), of("fcprojw", ParamId::kFcprojw, config.hidden())};
  const bool tied = layout.tensor(ParamId::kLmHead).size == 0;
  m.push_back(tied ? of("wte (the tied LM head)", ParamId::kWte, C) : of("lm_head", ParamId::kLmHead, C));
  return m;
}

absl::StatusOr<std::vector<float>> RoundLinearWeights(const GptConfig& config, const float* params,
                                                      WeightFormat format) {
  const ParamLayout layout(config);
  std::vector<float> out(params, params + layout.num_params());
  if (format == WeightFormat::kFp32) return out;
  for (const LinearMatrix& m : LinearMatrices(config)) {
    float* w = out.data() + m.offset;
    const int64_t n = m.rows * m.cols;
    for (int64_t i = 0; i < n; ++i) {
      if (!std::isfinite(w[i])) {
        return absl::InvalidArgumentError(absl::StrCat(m.name, " row ", i / m.cols, " column ", i % m.cols,
                                                       " is ", w[i], ": a weight format rounds finite values"));
      }
    }
    if (format == WeightFormat::kBf16) {
      for (int64_t i = 0; i < n; ++i) w[i] = Bf16ToFloat(FloatToBf16(w[i]));
    } else {
      // The decoder's own quantiser (quantize_int8.h), then back: the int8 kernels' values.
      Int8Matrix q;
      if (auto st = QuantizeInt8Matrix(w, m.rows, m.cols, &q); !st.ok()) return st;
      DequantizeInt8(q.q.data(), q.scales.data(), m.rows, m.cols, w);
    }
  }
  return out;
}

}  // namespace model
