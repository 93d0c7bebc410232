// exp_fast / tanh_fast against libm in double over dense grids, and the GeLU built on them.
#include "model/fast_math_cpu.h"

#include <cmath>

#include "gtest/gtest.h"
#include "model/gelu_math.h"

namespace model {
namespace {

TEST(FastMath, ExpRelativeError) {
  double worst = 0;
  for (float x = -87.0f; x < 88.0f; x += 3.1e-4f) {
    const double ref = std::exp(double(x));
    worst = std::max(worst, std::fabs(exp_fast(x) - ref) / ref);
  }
  EXPECT_LT(worst, 4e-7);  // a few float ulp (1 ulp = 6e-8 .. 1.2e-7 relative)
  EXPECT_EQ(exp_fast(0.0f), 1.0f);
  EXPECT_GT(exp_fast(-1000.0f), 0.0f);            // clamped, never 0 or denormal
  EXPECT_TRUE(std::isfinite(exp_fast(1000.0f)));  // clamped, never inf
}

TEST(FastMath, TanhAbsoluteError) {
  double worst = 0;
  for (float x = -12.0f; x < 12.0f; x += 1.3e-5f) {
    worst = std::max(worst, std::fabs(tanh_fast(x) - std::tanh(double(x))));
  }
  EXPECT_LT(worst, 5e-7);
  EXPECT_EQ(tanh_fast(0.0f), 0.0f);
  EXPECT_EQ(tanh_fast(50.0f), 1.0f);
  EXPECT_EQ(tanh_fast(-50.0f), -1.0f);
}

TEST(FastMath, GeluWithFastTanhMatchesDouble) {
  double worst_f = 0, worst_g = 0;
  for (float x = -10.0f; x < 10.0f; x += 1e-4f) {
    const float th = tanh_fast(gelu_tanh_arg(x));
    worst_f =
        std::max(worst_f, std::fabs(gelu_from_tanh(x, th) - gelu_tanh<double>(x)) / (1.0 + std::fabs(x)));
    worst_g = std::max(worst_g, std::fabs(gelu_grad_from_tanh(x, th) - gelu_tanh_grad<double>(x)));
  }
  EXPECT_LT(worst_f, 1e-6);
  EXPECT_LT(worst_g, 2e-6);
}

// gelu_tanh_grad is the derivative of gelu_tanh (central differences in double).
TEST(GeluMath, GradientIsTheDerivative) {
  for (double x = -6; x <= 6; x += 0.173) {
    const double h = 1e-6;
    const double fd = (gelu_tanh(x + h) - gelu_tanh(x - h)) / (2 * h);
    EXPECT_NEAR(gelu_tanh_grad(x), fd, 1e-8) << x;
  }
}

}  // namespace
}  // namespace model
