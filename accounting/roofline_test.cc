// Roofline: attainable, ridge, memory- vs compute-bound, fraction of the bound.
#include "accounting/roofline.h"

#include "accounting/costs.h"
#include "gtest/gtest.h"

namespace accounting {
namespace {

TEST(Roofline, ComputeBoundAboveTheRidge) {
  // 4096^3 bf16 matmul: intensity 4096/3 ~ 1365 > 156.
  const double flops = MatmulFlops(4096, 4096, 4096), bytes = MatmulBytes(4096, 4096, 4096, 2);
  RooflineResult r = Roofline(312e12, 2e12, flops, bytes);
  EXPECT_FALSE(r.memory_bound);
  EXPECT_DOUBLE_EQ(r.attainable_flops_per_s, 312e12);
  EXPECT_GT(r.bound_flops_per_s, 312e12);
  EXPECT_EQ(r.fraction_of_bound, 0);  // no time given
}

TEST(Roofline, MemoryBoundBelowTheRidgeAndFraction) {
  // x * 2 on 2^24 fp32 (a worked example): 1/8 FLOP/byte; 28.7 GB/s machine, 196 GFLOP/s peak.
  const int64_t n = int64_t{1} << 24;
  const double bytes = ElementwiseBytes(n, 1, 1, 4);
  RooflineResult r = Roofline(196e9, 28.7e9, n, bytes, /*seconds=*/bytes / 14.35e9);
  EXPECT_TRUE(r.memory_bound);
  EXPECT_DOUBLE_EQ(r.attainable_flops_per_s, 28.7e9 / 8);
  EXPECT_NEAR(r.fraction_of_bound, 0.5, 1e-12);  // ran at half the bandwidth
  EXPECT_NEAR(r.achieved_flops_per_s, 14.35e9 / 8, 1);
}

TEST(Roofline, AtTheRidgeBothRoofsMeet) {
  RooflineResult r = Roofline(312e12, 2e12, 156e9, 1e9);
  EXPECT_DOUBLE_EQ(r.attainable_flops_per_s, 312e12);
  EXPECT_DOUBLE_EQ(r.bound_flops_per_s, 312e12);
  EXPECT_FALSE(r.memory_bound);
}

}  // namespace
}  // namespace accounting
