// HashUniform: deterministic, in (-1, 1), never zero, roughly uniform; FillUniform matches it.
#include "measure/random_fill.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace micro {
namespace {

TEST(RandomFillTest, UniformNeverZeroAndInRange) {
  double sum = 0, sum_sq = 0;
  const int n = 1 << 20;
  for (int i = 0; i < n; ++i) {
    const float v = HashUniform(7, i);
    ASSERT_NE(v, 0.f) << i;
    ASSERT_GT(v, -1.f);
    ASSERT_LT(v, 1.f);
    sum += v;
    sum_sq += double{v} * v;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sum_sq / n, 1.0 / 3.0, 0.01);  // variance of U(-1, 1)
}

TEST(RandomFillTest, PositiveIsPositive) {
  for (int i = 0; i < 100000; ++i) {
    const float v = HashPositive(3, i);
    ASSERT_GT(v, 0.f);
    ASSERT_LT(v, 1.f);
  }
}

TEST(RandomFillTest, FillMatchesTheHashAndSeedsDiffer) {
  std::vector<float> a(1000), b(1000);
  FillUniform(a.data(), 1000, 5);
  FillUniform(b.data(), 1000, 6);
  int same = 0;
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(a[i], HashUniform(5, i));
    same += a[i] == b[i];
  }
  EXPECT_LT(same, 5);
}

}  // namespace
}  // namespace micro
