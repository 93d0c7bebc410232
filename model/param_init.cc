// GPT-2 initialisation of the parameter buffer from a seed.
#include "model/param_init.h"

#include <algorithm>
#include <cmath>

#include "model/data/rng.h"

namespace model {

double InitStd(const GptConfig& config, ParamId id) {
  switch (id) {
    case ParamId::kWte:
    case ParamId::kWpe:
    case ParamId::kQkvw:
    case ParamId::kFcw:
    case ParamId::kLmHead: return 0.02;
    case ParamId::kAttprojw:
    case ParamId::kFcprojw: return 0.02 / std::sqrt(2.0 * config.layers);
    default: return 0.0;
  }
}

void InitParams(const GptConfig& config, const ParamLayout& layout, uint64_t seed, float* params) {
  constexpr int64_t kChunk = 1 << 16;
  for (const ParamTensorInfo& t : layout.tensors()) {
    if (t.size == 0) continue;
    float* p = params + t.offset;
    const double std = InitStd(config, t.id);
    if (std == 0.0) {
      const float value =
          (t.id == ParamId::kLn1w || t.id == ParamId::kLn2w || t.id == ParamId::kLnfw) ? 1.0f : 0.0f;
#pragma omp parallel for schedule(static)
      for (int64_t i = 0; i < t.size; ++i) p[i] = value;
      continue;
    }
    const int64_t chunks = (t.size + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < chunks; ++c) {
      Rng rng(MixSeed(seed, static_cast<uint64_t>(t.id) + 1, static_cast<uint64_t>(c)));
      const int64_t end = std::min(t.size, (c + 1) * kChunk);
      for (int64_t i = c * kChunk; i < end; ++i) p[i] = static_cast<float>(std * rng.Normal());
    }
  }
}

}  // namespace model
