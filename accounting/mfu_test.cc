// MFU, HFU, DDP per-rank MFU and the running MFU.
#include "accounting/mfu.h"

#include "accounting/gpt_flops.h"
#include "gtest/gtest.h"

namespace accounting {
namespace {

TEST(Mfu, FlopsOverTimeOverPeak) {
  EXPECT_DOUBLE_EQ(*Mfu(/*flops_per_step=*/1e15, /*step_seconds=*/2, /*peak=*/1e15), 0.5);
  EXPECT_DOUBLE_EQ(*MfuFromThroughput(1e9, 1000, 2, 6e12), 0.5);
}

TEST(Mfu, BadInputsAreErrorsNamingTheArgument) {
  absl::StatusOr<double> m = Mfu(1e12, 0, 1e12);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("step_seconds=0"), std::string::npos);
  EXPECT_FALSE(Mfu(-1, 1, 1).ok());
  EXPECT_FALSE(Mfu(1, 1, 0).ok());
  // An absurd peak: the ratio overflows to inf or underflows to 0, neither a utilisation.
  absl::StatusOr<double> inf = Mfu(1e12, 1, 1e-300);
  ASSERT_FALSE(inf.ok());
  EXPECT_NE(inf.status().message().find("is not a utilisation"), std::string::npos) << inf.status();
  EXPECT_FALSE(Mfu(1e-300, 1, 1e308).ok());
  absl::StatusOr<double> d = MfuFromThroughput(1e9, 1000, 0, 1e12);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("devices=0"), std::string::npos);
}

TEST(Mfu, DdpPerRankNumeratorMustMatchDenominator) {
  // 8 ranks, each doing the same local work in the same step time.
  const int world = 8;
  GptShape s{12, 12, 768, 50304, 1024, false};
  absl::StatusOr<StepFlops> local = GptStepFlops(s, 1024, 12, 5, AttentionConvention::kFull);
  ASSERT_TRUE(local.ok());
  const double step_s = 0.5, peak = 989.5e12;
  const double per_rank = *Mfu(local->model_flops_per_step, step_s, peak);
  const double global_over_one = *Mfu(local->model_flops_per_step * world, step_s, peak);
  const double local_over_all = *Mfu(local->model_flops_per_step, step_s, peak * world);
  EXPECT_DOUBLE_EQ(global_over_one / per_rank, world);  // inflated by the world size
  EXPECT_DOUBLE_EQ(per_rank / local_over_all, world);   // deflated by the world size
  // Global work over the global peak equals the per-rank figure when ranks are equal.
  EXPECT_DOUBLE_EQ(*Mfu(local->model_flops_per_step * world, step_s, peak * world), per_rank);
}

TEST(Mfu, HfuCountsRecomputeMfuDoesNot) {
  GptShape s{12, 12, 768, 50304, 1024, false};
  absl::StatusOr<StepFlops> f = GptStepFlops(s, 1024, 8, 1, AttentionConvention::kFull, Recompute::kFull);
  ASSERT_TRUE(f.ok());
  const double mfu = *Mfu(f->model_flops_per_step, 1.0, 1e15);
  const double hfu = *Hfu(f->hardware_flops_per_step, 1.0, 1e15);
  EXPECT_GT(hfu, mfu);
  EXPECT_DOUBLE_EQ(hfu / mfu, 4.0 / 3.0);
}

TEST(RunningMfu, SkipsFiveThenSmooths) {
  RunningMfu r;
  EXPECT_EQ(r.ToString(), "n/a");
  for (int i = 0; i < RunningMfu::kSkip; ++i) {
    r.Update(0.99);  // warm-up steps: ignored
    EXPECT_FALSE(r.value().has_value());
    EXPECT_EQ(r.ToString(), "n/a");  // never "-100.00%"
  }
  r.Update(0.40);
  ASSERT_TRUE(r.value().has_value());
  EXPECT_DOUBLE_EQ(*r.value(), 0.40);
  EXPECT_EQ(r.ToString(), "40.00%");
  r.Update(0.50);
  EXPECT_DOUBLE_EQ(*r.value(), 0.9 * 0.40 + 0.1 * 0.50);
  r.Update(0.50);
  EXPECT_DOUBLE_EQ(*r.value(), 0.9 * (0.9 * 0.40 + 0.1 * 0.50) + 0.1 * 0.50);
  EXPECT_EQ(r.updates(), 8);
}

TEST(Mfu, FormatPercent) {
  EXPECT_EQ(FormatPercent(0.2019), "20.19%");
  EXPECT_EQ(FormatPercent(0.2019, 1), "20.2%");
}

}  // namespace
}  // namespace accounting
