// RoundLinearWeights: which tensors it touches (the Linear weights: their sizes add up to the
// layout's matmul parameters), the bf16 rounding element by element, the int8 round trip's error
// bound and levels per row, a zero row, the rest of the parameters untouched, a NaN refused.
#include "model/rounded_weights.h"

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/bf16.h"
#include "model/param_init.h"
#include "model/param_layout.h"

namespace model {
namespace {

std::vector<float> Params(const GptConfig& c, uint64_t seed) {
  const ParamLayout layout(c);
  std::vector<float> p(static_cast<size_t>(layout.num_params()));
  InitParams(c, layout, seed, p.data());
  return p;
}

// Whether parameter i lies in one of the Linear weights.
std::vector<bool> LinearMask(const GptConfig& c) {
  std::vector<bool> mask(static_cast<size_t>(ParamLayout(c).num_params()), false);
  for (const LinearMatrix& m : LinearMatrices(c)) {
    for (int64_t i = 0; i < m.rows * m.cols; ++i) mask[m.offset + i] = true;
  }
  return mask;
}

TEST(RoundedWeightsTest, LinearMatricesAreTheMatmulParameters) {
  for (const char* preset : {"test-tiny", "test-mini", "llama-tiny"}) {
    const GptConfig c = *GptPreset(preset);
    int64_t total = 0;
    for (const LinearMatrix& m : LinearMatrices(c)) total += m.rows * m.cols;
    EXPECT_EQ(total, ParamLayout(c).matmul_params()) << preset;
  }
}

TEST(RoundedWeightsTest, Fp32IsAnExactCopy) {
  const GptConfig c = *GptPreset("test-tiny");
  const std::vector<float> p = Params(c, 1);
  EXPECT_EQ(*RoundLinearWeights(c, p.data(), WeightFormat::kFp32), p);
}

TEST(RoundedWeightsTest, Bf16RoundsTheLinearWeightsOnly) {
  for (const char* preset : {"test-mini", "llama-tiny"}) {
    const GptConfig c = *GptPreset(preset);
    const std::vector<float> p = Params(c, 2);
    const std::vector<float> r = *RoundLinearWeights(c, p.data(), WeightFormat::kBf16);
    const std::vector<bool> linear = LinearMask(c);
    int64_t changed = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      const float want = linear[i] ? Bf16ToFloat(FloatToBf16(p[i])) : p[i];
      ASSERT_EQ(r[i], want) << preset << " parameter " << i;
      changed += r[i] != p[i];
    }
    EXPECT_GT(changed, 0) << preset;
  }
}

TEST(RoundedWeightsTest, Int8RoundTripIsWithinHalfAStepPerRow) {
  const GptConfig c = *GptPreset("llama-tiny");  // untied LM head: wte keeps its values
  const std::vector<float> p = Params(c, 3);
  const std::vector<float> r = *RoundLinearWeights(c, p.data(), WeightFormat::kInt8);
  const std::vector<bool> linear = LinearMask(c);
  for (size_t i = 0; i < p.size(); ++i) {
    if (!linear[i]) {
      ASSERT_EQ(r[i], p[i]) << "parameter " << i << " is not a Linear weight";
    }
  }
  for (const LinearMatrix& m : LinearMatrices(c)) {
    for (int64_t row = 0; row < m.rows; ++row) {
      const float* w = p.data() + m.offset + row * m.cols;
      const float* q = r.data() + m.offset + row * m.cols;
      float amax = 0;
      for (int64_t j = 0; j < m.cols; ++j) amax = std::fmax(amax, std::fabs(w[j]));
      const float s = amax / 127.0f;
      std::set<float> levels;
      for (int64_t j = 0; j < m.cols; ++j) {
        ASSERT_LE(std::fabs(q[j] - w[j]), 0.5f * s * (1 + 1e-5f)) << m.name << " row " << row << " column " << j;
        levels.insert(std::nearbyint(q[j] / s));
        ASSERT_NEAR(q[j] / s, std::nearbyint(q[j] / s), 1e-3) << "not a multiple of the row's scale";
      }
      ASSERT_LE(levels.size(), 255u);
    }
  }
}

TEST(RoundedWeightsTest, NonFiniteWeightIsRefusedByName) {
  const GptConfig c = *GptPreset("test-tiny");
  std::vector<float> p = Params(c, 4);
  const LinearMatrix fc = LinearMatrices(c)[2];
  p[fc.offset + 3 * fc.cols + 1] = NAN;
  auto r = RoundLinearWeights(c, p.data(), WeightFormat::kInt8);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("fcw row 3 column 1 is nan"), std::string::npos)
      << r.status();
}

}  // namespace
}  // namespace model
