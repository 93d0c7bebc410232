// The CPU decoder tests' shared parameters, tokens and error (decoder_test_util.h).
#include "model/decoder_test_util.h"

#include <algorithm>
#include <cmath>

#include "model/param_init.h"
#include "model/param_layout.h"

namespace model {

std::vector<float> DecoderTestParams(const GptConfig& config, uint64_t seed) {
  const ParamLayout layout(config);
  std::vector<float> params(layout.num_params());
  InitParams(config, layout, seed, params.data());
  if (config.positions == PositionKind::kRope) {
    const ParamTensorInfo& qkvw = layout.tensor(ParamId::kQkvw);
    const int64_t C = config.width, per_layer = qkvw.size / config.layers;
    const int64_t qk_rows = C + config.kv_width();  // q's rows, then k's
    for (int64_t l = 0; l < config.layers; ++l) {
      float* w = params.data() + qkvw.offset + l * per_layer;
      for (int64_t i = 0; i < qk_rows * C; ++i) w[i] *= 20.0f;
    }
  }
  return params;
}

std::vector<int32_t> RandomTokens(int n, int vocab, Rng* rng) {
  std::vector<int32_t> t(static_cast<size_t>(std::max(n, 0)));
  for (int32_t& x : t) x = static_cast<int32_t>(rng->UniformInt(static_cast<uint64_t>(vocab)));
  return t;
}

std::vector<int32_t> RandomTokens(int n, int vocab, uint64_t seed) {
  Rng rng(seed);
  return RandomTokens(n, vocab, &rng);
}

double MaxRelErr(const float* got, const float* want, int B, const GptConfig& config) {
  double diff = 0, scale = 1e-30;
  for (int b = 0; b < B; ++b) {
    for (int v = 0; v < config.vocab; ++v) {
      const size_t i = static_cast<size_t>(b) * config.padded_vocab + v;
      diff = std::max(diff, std::fabs(static_cast<double>(got[i]) - want[i]));
      scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
    }
  }
  return diff / scale;
}

}  // namespace model
