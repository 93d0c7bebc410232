// Symmetric per-output-channel int8: every weight within half a step (s / 2) of its dequantised
// value, each row's largest magnitude at +-127 exactly, an all-zero row at scale 0, round to
// nearest (ties to even), and NaN or infinity refused naming where it is.
#include "model/quantize_int8.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace model {
namespace {

std::vector<float> Weights(int64_t n, uint32_t seed) {
  std::vector<float> w(n);
  uint32_t s = seed * 2654435761u + 1;
  for (float& v : w) {
    s = s * 1664525u + 1013904223u;
    v = (static_cast<float>(s >> 8) / 16777216.0f - 0.5f) * 0.2f;  // uniform in [-0.1, 0.1)
  }
  return w;
}

TEST(QuantizeInt8, EveryWeightIsWithinHalfAStepAndTheExtremesAre127) {
  const int64_t OC = 37, C = 53;
  std::vector<float> w = Weights(OC * C, 3);
  w[5 * C + 7] = -0.75f;  // row 5's largest magnitude is negative
  std::vector<int8_t> q(OC * C);
  std::vector<float> s(OC), back(OC * C);
  ASSERT_TRUE(QuantizeInt8(w.data(), OC, C, q.data(), s.data()).ok());
  DequantizeInt8(q.data(), s.data(), OC, C, back.data());
  for (int64_t o = 0; o < OC; ++o) {
    float maxabs = 0;
    int64_t arg = 0;
    for (int64_t i = 0; i < C; ++i) {
      if (std::fabs(w[o * C + i]) > maxabs) maxabs = std::fabs(w[o * C + i]), arg = i;
    }
    EXPECT_FLOAT_EQ(s[o], maxabs / 127) << "row " << o;
    EXPECT_EQ(std::abs(static_cast<int>(q[o * C + arg])), 127) << "row " << o;
    EXPECT_EQ(q[o * C + arg] > 0, w[o * C + arg] > 0) << "row " << o;
    for (int64_t i = 0; i < C; ++i) {
      ASSERT_GE(q[o * C + i], -127);
      // Half a step, and the rounding of the product q * s (a few ulps of a weight <= max|w|).
      ASSERT_LE(std::fabs(w[o * C + i] - back[o * C + i]), s[o] / 2 * (1 + 1e-5))
          << "row " << o << " column " << i;
      ASSERT_EQ(back[o * C + i], static_cast<float>(q[o * C + i]) * s[o]);
    }
  }
  EXPECT_EQ(q[5 * C + 7], -127);
}

TEST(QuantizeInt8, RoundsToNearestWithTiesToEven) {
  // Scale 1 (max |w| = 127): the weights are the quotients themselves.
  const std::vector<float> w = {127, 2.5f, 3.5f, -2.5f, 0.49f, 0.51f, -126.6f, 1.0f};
  std::vector<int8_t> q(w.size());
  float s = 0;
  ASSERT_TRUE(QuantizeInt8(w.data(), 1, static_cast<int64_t>(w.size()), q.data(), &s).ok());
  EXPECT_EQ(s, 1.0f);
  EXPECT_EQ(std::vector<int>(q.begin(), q.end()), (std::vector<int>{127, 2, 4, -2, 0, 1, -127, 1}));
}

TEST(QuantizeInt8, AnAllZeroRowHasScaleZeroAndDequantisesToZeros) {
  std::vector<float> w = {0, 0, 0, 0.5f, -1, 0.25f};  // row 0 zeros, row 1 not
  std::vector<int8_t> q(6, 99);
  std::vector<float> s(2, -1), back(6, -1);
  ASSERT_TRUE(QuantizeInt8(w.data(), 2, 3, q.data(), s.data()).ok());
  EXPECT_EQ(s[0], 0.0f);
  EXPECT_EQ(q[0], 0);
  EXPECT_EQ(q[2], 0);
  EXPECT_EQ(s[1], 1.0f / 127);
  DequantizeInt8(q.data(), s.data(), 2, 3, back.data());
  EXPECT_EQ(back[0], 0.0f);
  EXPECT_EQ(back[2], 0.0f);
  EXPECT_EQ(q[4], -127);
}

TEST(QuantizeInt8, NanAndInfinityAreRefusedNamingWhere) {
  const int64_t OC = 4, C = 5;
  std::vector<int8_t> q(OC * C);
  std::vector<float> s(OC);
  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()}) {
    std::vector<float> w = Weights(OC * C, 5);
    w[2 * C + 3] = bad;
    w[3 * C + 1] = bad;  // a later row too: the first is named
    absl::Status st = QuantizeInt8(w.data(), OC, C, q.data(), s.data());
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(std::string(st.message()).find("row 2, column 3"), std::string::npos) << st;
  }
  std::vector<float> w(1, 0.5f);
  EXPECT_FALSE(QuantizeInt8(w.data(), 0, 1, q.data(), s.data()).ok());
  EXPECT_FALSE(QuantizeInt8(w.data(), 1, 0, q.data(), s.data()).ok());
}

TEST(QuantizeInt8, MatrixHoldsTheBytesTheKernelsRead) {
  const int64_t OC = 6, C = 10;
  const std::vector<float> w = Weights(OC * C, 9);
  Int8Matrix m;
  ASSERT_TRUE(QuantizeInt8Matrix(w.data(), OC, C, &m).ok());
  EXPECT_EQ(m.bytes(), OC * C + 4 * OC);
  std::vector<int8_t> q(OC * C);
  std::vector<float> s(OC);
  ASSERT_TRUE(QuantizeInt8(w.data(), OC, C, q.data(), s.data()).ok());
  EXPECT_EQ(m.q, q);
  EXPECT_EQ(m.scales, s);
}

}  // namespace
}  // namespace model
