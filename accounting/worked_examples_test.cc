// Worked examples of the project's accounting formulas (PaLM's MFU and 6N + 12LCT, nanoGPT's
// estimate_mfu, the roofline paper's ridge point and bandwidth bound), reproduced with this library.
// Each test quotes the example's inputs and its printed answer; the figures the examples round
// (e.g. A100 bandwidth 2.0 TB/s) are used as rounded there, and the registry's own
// datasheet figures are checked against them separately (peaks_test.cc).
#include <cmath>

#include "accounting/costs.h"
#include "accounting/estimates.h"
#include "accounting/flop_counter.h"
#include "accounting/mfu.h"
#include "accounting/mfu_rating.h"
#include "accounting/peaks.h"
#include "accounting/roofline.h"
#include "gtest/gtest.h"

namespace accounting {
namespace {

// Datasheet figures as the examples round them: A100 bf16 312e12, 2.0e12 B/s; H100 bf16 989.5e12.
constexpr double kA100Bf16 = 312e12;
constexpr double kA100RoundedBandwidth = 2.0e12;
constexpr double kH100Bf16 = 989.5e12;

// A plain triple loop that reports each multiply-add it performs as 2 FLOPs, as a FLOP counter
// on real ops would (PyTorch's FlopCounterMode does). a: (m, k), b: (k, n), c: (m, n).
void CountedMatmul(int m, int k, int n, const float* a, const float* b, float* c) {
  double multiply_adds = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int p = 0; p < k; ++p) {
        acc += a[i * k + p] * b[p * n + j];
        multiply_adds += 1;
      }
      c[i * n + j] = acc;
    }
  }
  CountFlops(2 * multiply_adds, "matmul-loop");  // one multiply-add = 2 FLOPs
}

TEST(ComputeAccounting, MatmulFlopsAre2mknAndMatchACounter) {
  struct Case { int m, k, n; double expected; };
  for (Case c : {Case{16, 32, 8, 8192}, Case{128, 256, 512, 33554432}, Case{1000, 3, 7, 42000}}) {
    EXPECT_EQ(MatmulFlops(c.m, c.k, c.n), c.expected);
    std::vector<float> a(c.m * c.k, 1.0f), b(c.k * c.n, 0.5f), out(c.m * c.n);
    FlopCounter counter;
    {
      ScopedFlopCounter scope(&counter);
      CountedMatmul(c.m, c.k, c.n, a.data(), b.data(), out.data());
    }
    EXPECT_EQ(counter.total(), MatmulFlops(c.m, c.k, c.n)) << c.m << "x" << c.k << "x" << c.n;
    EXPECT_FLOAT_EQ(out[0], 0.5f * c.k);  // the loop really ran
  }
}

TEST(ComputeAccounting, ElementwiseTimesTwoIsAnEighthFlopPerByte) {
  const int64_t n = int64_t{1} << 24;
  const double bytes = ElementwiseBytes(n, /*inputs=*/1, /*outputs=*/1, /*bytes_per_el=*/4);
  EXPECT_EQ(bytes, 2.0 * n * 4);
  EXPECT_DOUBLE_EQ(ArithmeticIntensity(/*flops=*/n, bytes), 1.0 / 8);
}

TEST(RooflineAndMfu, A100RidgeIs156AndIntensity2TopsOutAt4Tflops) {
  RooflineResult r = Roofline(kA100Bf16, kA100RoundedBandwidth, /*flops=*/2e9, /*bytes=*/1e9);
  EXPECT_DOUBLE_EQ(r.ridge, 156);
  EXPECT_DOUBLE_EQ(r.intensity, 2);
  EXPECT_DOUBLE_EQ(r.attainable_flops_per_s, 4e12);
  EXPECT_TRUE(r.memory_bound);
}

TEST(RooflineAndMfu, SevenBOnEightA100At12000TokensIs20Point2Percent) {
  absl::StatusOr<double> mfu = MfuFromThroughput(7e9, 12000, 8, kA100Bf16);
  ASSERT_TRUE(mfu.ok()) << mfu.status();
  EXPECT_NEAR(*mfu, 0.202, 0.0005);  // the example prints "MFU = 20.2%"
  EXPECT_EQ(FormatPercent(*mfu, 1), "20.2%");
  EXPECT_EQ(RateMfu(*mfu).name, "low");  // the example: "low"
}

TEST(RooflineAndMfu, SevenBOneTrillionTokensOn64A100Takes54Or97Days) {
  absl::StatusOr<double> at45 = TrainingDays(7e9, 1e12, 64, kA100Bf16, 0.45);
  absl::StatusOr<double> at25 = TrainingDays(7e9, 1e12, 64, kA100Bf16, 0.25);
  ASSERT_TRUE(at45.ok() && at25.ok());
  absl::StatusOr<double> seconds = TrainingSeconds(7e9, 1e12, 64, kA100Bf16, 0.45);
  EXPECT_NEAR(*seconds, 4.7e6, 0.05e6);  // "≈ 4.7e6 秒"
  EXPECT_EQ(std::lround(*at45), 54);
  EXPECT_EQ(std::lround(*at25), 97);
  EXPECT_EQ(std::lround(*at25 - *at45), 43);  // "差了 43 天的机时"
}

TEST(ComputeAccounting, Gpt3SixNDIs3Point15e23) {
  absl::StatusOr<double> flops = TrainingFlops(175e9, 300e9);
  ASSERT_TRUE(flops.ok());
  EXPECT_DOUBLE_EQ(*flops, 3.15e23);
}

TEST(ComputeAccounting, SeventyBFifteenTrillionTokensOn1024H100At50Percent) {
  absl::StatusOr<double> days = TrainingDays(70e9, 15e12, 1024, kH100Bf16, 0.5);
  ASSERT_TRUE(days.ok());
  // 6.3e24 / (1024 * 989.5e12 * 0.5) = 1.2435e7 s; the example prints "about 144 days".
  EXPECT_EQ(std::lround(*days), 144);
}

TEST(ComputeAccounting, EightH100ForTwoWeeksTrains1BAnd7B) {
  absl::StatusOr<double> budget = FlopBudget(8, kH100Bf16, 14 * kSecondsPerDay);
  ASSERT_TRUE(budget.ok());
  EXPECT_NEAR(*budget, 9.58e21, 0.01e21);  // "{budget:.2e}" = 9.58e+21
  absl::StatusOr<double> tokens_1b = TokensAffordable(*budget, 1e9, 0.5);
  absl::StatusOr<double> tokens_7b = TokensAffordable(*budget, 7e9, 0.5);
  ASSERT_TRUE(tokens_1b.ok() && tokens_7b.ok());
  EXPECT_EQ(std::lround(*tokens_1b / 1e9), 798);  // 798B tokens
  EXPECT_EQ(std::lround(*tokens_7b / 1e9), 114);  // 114B tokens
}

TEST(ComputeAccounting, OnePointFiveBAt40000TokensOnOneH100) {
  absl::StatusOr<double> mfu = MfuFromThroughput(1.5e9, 40000, 1, kH100Bf16);
  ASSERT_TRUE(mfu.ok());
  EXPECT_EQ(FormatPercent(*mfu, 0), "36%");  // "MFU = {mfu:.0%}"
  EXPECT_NEAR(*mfu, 0.3638, 0.0001);
  EXPECT_EQ(RateMfu(*mfu).name, "fair");
}

TEST(RooflineAndMfu, SevenBBf16DecodeOnA100IsAbout143TokensPerSecond) {
  absl::StatusOr<double> bound = DecodeTokensPerSecondBound(7e9, 2, kA100RoundedBandwidth);
  ASSERT_TRUE(bound.ok());
  EXPECT_EQ(std::lround(*bound), 143);  // "2000 / 14 ≈ 143 tokens/秒"
  // With the registry's datasheet bandwidth (2039 GB/s for the 80GB SXM4) it is ~146.
  absl::StatusOr<Peak> a100 = DatasheetBandwidth("NVIDIA A100-SXM4-80GB");
  ASSERT_TRUE(a100.ok());
  absl::StatusOr<double> datasheet_bound = DecodeTokensPerSecondBound(7e9, 2, a100->bytes_per_s);
  EXPECT_NEAR(*datasheet_bound, 143, 143 * 0.03);
}

}  // namespace
}  // namespace accounting
