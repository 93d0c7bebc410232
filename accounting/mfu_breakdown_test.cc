#include "accounting/mfu_breakdown.h"

#include "accounting/mfu.h"
#include "gtest/gtest.h"

namespace accounting {
namespace {

MfuBreakdownInput Example() {
  // A 1.2 s step of 1.9e11 model FLOPs against a 235 GFLOP/s peak; 1.85e11 of them in GEMMs
  // that run at 200 GFLOP/s alone; 40 ms of optimizer and data.
  return MfuBreakdownInput{/*model_flops_per_step=*/1.9e11,
                           /*peak_flops_per_s=*/2.35e11,
                           /*step_seconds=*/1.2,
                           /*optimizer_and_data_seconds=*/0.04,
                           /*gemm_flops_per_step=*/1.85e11,
                           /*gemm_seconds_at_rates=*/1.85e11 / 2.0e11};
}

TEST(MfuBreakdown, PartsAddUpToOneAndTheMfuPartIsTheMfu) {
  const MfuBreakdownInput in = Example();
  auto b = BreakDownMfu(in);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_NEAR(b->sum(), 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(b->mfu, *Mfu(in.model_flops_per_step, in.step_seconds, in.peak_flops_per_s));
  // Each part by hand.
  EXPECT_NEAR(b->mfu, 1.9e11 / (1.2 * 2.35e11), 1e-12);
  EXPECT_NEAR(b->gemm_efficiency, (1.85e11 / 2.0e11 - 1.85e11 / 2.35e11) / 1.2, 1e-12);
  EXPECT_NEAR(b->optimizer_and_data, 0.04 / 1.2, 1e-12);
  EXPECT_GT(b->non_matmul, 0);
}

// With the GEMMs' in-step time (the op timer's), the GEMMs slower in the step than alone are
// their own part, and non_matmul is the other ops' time only.
TEST(MfuBreakdown, InStepGemmTimeIsItsOwnPart) {
  MfuBreakdownInput in = Example();
  auto without = BreakDownMfu(in);
  ASSERT_TRUE(without.ok());
  EXPECT_FALSE(without->in_step_measured);
  EXPECT_EQ(without->gemm_in_step, 0);
  in.gemm_seconds_in_step = in.gemm_seconds_at_rates + 0.06;  // 60 ms slower in the step
  auto b = BreakDownMfu(in);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_TRUE(b->in_step_measured);
  EXPECT_NEAR(b->gemm_in_step, 0.06 / 1.2, 1e-12);
  EXPECT_NEAR(b->non_matmul, without->non_matmul - 0.06 / 1.2, 1e-12);
  EXPECT_NEAR(b->sum(), 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(b->mfu, without->mfu);
  EXPECT_DOUBLE_EQ(b->gemm_efficiency, without->gemm_efficiency);
  // Faster in the step than alone: a negative part, still adding up.
  in.gemm_seconds_in_step = in.gemm_seconds_at_rates - 0.01;
  b = BreakDownMfu(in);
  ASSERT_TRUE(b.ok());
  EXPECT_LT(b->gemm_in_step, 0);
  EXPECT_NEAR(b->sum(), 1.0, 1e-12);
  // More GEMM time than the forward and backward had: an error naming the field.
  in.gemm_seconds_in_step = in.step_seconds;
  b = BreakDownMfu(in);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("gemm_seconds_in_step"), std::string::npos) << b.status();
}

TEST(MfuBreakdown, GemmsAtThePeakLoseNothing) {
  MfuBreakdownInput in = Example();
  in.gemm_seconds_at_rates = in.gemm_flops_per_step / in.peak_flops_per_s;
  auto b = BreakDownMfu(in);
  ASSERT_TRUE(b.ok());
  EXPECT_NEAR(b->gemm_efficiency, 0, 1e-12);
  EXPECT_NEAR(b->sum(), 1.0, 1e-12);
}

TEST(MfuBreakdown, ManyRandomInputsStillAddUp) {
  for (int i = 1; i <= 50; ++i) {
    MfuBreakdownInput in = Example();
    in.step_seconds = 0.9 + 0.02 * i;
    in.optimizer_and_data_seconds = 0.001 * i;
    in.gemm_seconds_at_rates = in.gemm_flops_per_step / (2.35e11 - 2e9 * i);
    auto b = BreakDownMfu(in);
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_NEAR(b->sum(), 1.0, 1e-12);
    EXPECT_DOUBLE_EQ(b->mfu, *Mfu(in.model_flops_per_step, in.step_seconds, in.peak_flops_per_s));
  }
}

TEST(MfuBreakdown, ErrorsNameTheField) {
  MfuBreakdownInput in = Example();
  in.step_seconds = 0;
  EXPECT_FALSE(BreakDownMfu(in).ok());
  in = Example();
  in.optimizer_and_data_seconds = 2;
  auto b = BreakDownMfu(in);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("optimizer_and_data_seconds"), std::string::npos);
  in = Example();
  in.gemm_seconds_at_rates = in.gemm_flops_per_step / 3e11;  // a rate above the peak
  b = BreakDownMfu(in);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("gemm_seconds_at_rates"), std::string::npos);
  in = Example();
  in.gemm_flops_per_step = -1;
  EXPECT_FALSE(BreakDownMfu(in).ok());
}

}  // namespace
}  // namespace accounting
