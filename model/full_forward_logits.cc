#include "model/full_forward_logits.h"

#include <algorithm>

#include "gtest/gtest.h"
#include "model/cpu_gpt.h"

namespace model {

std::vector<float> FullForwardLastLogits(const GptConfig& config, const std::vector<float>& params,
                                         const std::vector<int32_t>& seq, int B, int T) {
  auto m = CpuGpt<float>::Create(config, B, T);
  EXPECT_TRUE(m.ok()) << m.status();
  std::copy(params.begin(), params.end(), (*m)->params());
  Batch batch;
  batch.B = B;
  batch.T = T;
  batch.inputs = seq;
  batch.targets.assign(seq.size(), 0);
  EXPECT_TRUE((*m)->Forward(batch).ok());
  const int64_t Vp = config.padded_vocab;
  std::vector<float> out(static_cast<size_t>(B) * Vp);
  for (int b = 0; b < B; ++b) {
    const float* row = (*m)->logits() + (static_cast<int64_t>(b) * T + T - 1) * Vp;
    std::copy(row, row + Vp, out.begin() + b * Vp);
  }
  return out;
}

}  // namespace model
