// Each memory-roof kernel computes what its kind counts: the arrays it reads, it reads (the
// result depends on every element), the arrays it writes hold what the formula gives, and the
// arrays it should not touch are unchanged.
#include "measure/memory_kernels.h"

#include <cmath>
#include <cstdlib>
#include <vector>

#include "gtest/gtest.h"
#include "measure/random_fill.h"

namespace micro {
namespace {

using accounting::TrafficKind;

struct Arrays {
  explicit Arrays(int64_t n) : n(n) {
    for (float** p : {&a, &b, &c}) {
      *p = static_cast<float*>(std::aligned_alloc(64, ((n * 4 + 63) / 64) * 64));
    }
    FillUniform(a, n, 1);
    FillUniform(b, n, 2);
    FillUniform(c, n, 3);
  }
  ~Arrays() {
    std::free(a);
    std::free(b);
    std::free(c);
  }
  std::vector<float> Copy(const float* p) const { return std::vector<float>(p, p + n); }
  TrafficArrays View() const { return {a, b, c, n}; }
  int64_t n;
  float *a, *b, *c;
};

// Odd sizes leave a tail after the vector loops.
class KernelTest : public ::testing::TestWithParam<int64_t> {};

TEST_P(KernelTest, ReadSumsEveryElement) {
  Arrays x(GetParam());
  double want = 0;
  for (int64_t i = 0; i < x.n; ++i) want += x.a[i];
  const std::vector<float> a = x.Copy(x.a);
  EXPECT_NEAR(RunTrafficKernel(TrafficKind::kRead, x.View()), want, 1e-4 * (std::abs(want) + x.n));
  EXPECT_EQ(x.Copy(x.a), a);  // read only
  // One element changed changes the sum: every element is read.
  x.a[x.n - 1] += 1000.0f;
  EXPECT_NEAR(ReadSum(x.a, x.n), want + 1000.0, 1e-4 * (std::abs(want) + x.n) + 1e-2);
}

TEST_P(KernelTest, WriteNtWritesEveryElementAndReadsNothing) {
  Arrays x(GetParam());
  const std::vector<float> b = x.Copy(x.b), c = x.Copy(x.c);
  RunTrafficKernel(TrafficKind::kWriteNt, x.View());
  for (int64_t i = 0; i < x.n; ++i) ASSERT_EQ(x.a[i], kWriteNtValue) << i;
  EXPECT_EQ(x.Copy(x.b), b);
  EXPECT_EQ(x.Copy(x.c), c);
}

TEST_P(KernelTest, CopyAndTriadAreStreams) {
  Arrays x(GetParam());
  const std::vector<float> a = x.Copy(x.a), c = x.Copy(x.c);
  RunTrafficKernel(TrafficKind::kCopy, x.View());
  EXPECT_EQ(x.Copy(x.b), a);
  EXPECT_EQ(x.Copy(x.a), a);
  RunTrafficKernel(TrafficKind::kTriad, x.View());
  for (int64_t i = 0; i < x.n; ++i) ASSERT_EQ(x.a[i], a[i] + kTriadScalar * c[i]) << i;
  EXPECT_EQ(x.Copy(x.c), c);
}

TEST_P(KernelTest, InPlaceUpdatesTwoArraysFromTheThird) {
  Arrays x(GetParam());
  const std::vector<float> a = x.Copy(x.a), b = x.Copy(x.b), c = x.Copy(x.c);
  RunTrafficKernel(TrafficKind::kInPlace, x.View());
  for (int64_t i = 0; i < x.n; ++i) {
    ASSERT_FLOAT_EQ(x.a[i], kInPlaceS * a[i] + c[i]) << i;
    ASSERT_FLOAT_EQ(x.b[i], kInPlaceT * b[i] + c[i] * c[i]) << i;
  }
  EXPECT_EQ(x.Copy(x.c), c);
  // Repeated passes stay finite (the roofs run thousands).
  for (int k = 0; k < 200; ++k) RunTrafficKernel(TrafficKind::kInPlace, x.View());
  for (int64_t i = 0; i < x.n; ++i) ASSERT_TRUE(std::isfinite(x.a[i]) && std::isfinite(x.b[i])) << i;
}

INSTANTIATE_TEST_SUITE_P(Sizes, KernelTest, ::testing::Values(int64_t{1}, int64_t{13}, int64_t{4099}, int64_t{1} << 16));

TEST(TrafficKernelBytes, CountsAsTheTableSays) {
  EXPECT_DOUBLE_EQ(TrafficKernelBytes(TrafficKind::kRead, 10), 40);
  EXPECT_DOUBLE_EQ(TrafficKernelBytes(TrafficKind::kWriteNt, 10), 40);
  EXPECT_DOUBLE_EQ(TrafficKernelBytes(TrafficKind::kCopy, 10), 80);
  EXPECT_DOUBLE_EQ(TrafficKernelBytes(TrafficKind::kTriad, 10), 120);
  EXPECT_DOUBLE_EQ(TrafficKernelBytes(TrafficKind::kInPlace, 10), 200);
}

}  // namespace
}  // namespace micro
