// Per-rank MFU is the single-rank formula on local work; the inflated and deflated variants
// differ from it by exactly the world size.
#include "macro/ddp_accounting.h"

#include "accounting/gpt_flops.h"
#include "accounting/mfu.h"
#include "gtest/gtest.h"

namespace macro {
namespace {

accounting::GptShape Gpt2() {
  return accounting::GptShape{/*layers=*/12, /*heads=*/12, /*width=*/768, /*vocab=*/50304, /*block=*/1024};
}

TEST(DdpAccounting, PerRankMfuIsTheSingleRankFormulaOnLocalWork) {
  const int64_t B = 12, T = 1024, accum = 4;
  const double seconds = 0.75, peak = 989e12;  // H100 SXM bf16 dense, one device
  auto single = accounting::GptStepFlops(Gpt2(), T, B, accum, accounting::AttentionConvention::kFull);
  ASSERT_TRUE(single.ok());
  auto single_mfu = accounting::Mfu(single->model_flops_per_step, seconds, peak);
  ASSERT_TRUE(single_mfu.ok());

  auto local = LocalStepFlops(single->model_flops_per_token, B, T, accum);
  ASSERT_TRUE(local.ok());
  EXPECT_DOUBLE_EQ(*local, single->model_flops_per_step);
  auto mfu = PerRankMfu(*local, seconds, peak);
  ASSERT_TRUE(mfu.ok());
  EXPECT_DOUBLE_EQ(*mfu, *single_mfu);
  // Worked figure: (6N + 12LCT) x B x T x accum / (s x peak), N = 123.69M without wpe.
  EXPECT_NEAR(*mfu, single->model_flops_per_token * B * T * accum / (seconds * peak), 1e-12);

  for (int world : {2, 8, 64}) {
    auto inflated = InflatedMfu(*local, world, seconds, peak);
    auto deflated = DeflatedMfu(*local, world, seconds, peak);
    ASSERT_TRUE(inflated.ok());
    ASSERT_TRUE(deflated.ok());
    EXPECT_NEAR(*inflated / *mfu, world, 1e-9) << world;
    EXPECT_NEAR(*mfu / *deflated, world, 1e-9) << world;
    EXPECT_NE(*inflated, *mfu);
    EXPECT_NE(*deflated, *mfu);
  }
  // With one rank all three agree: the single-rank baseline.
  EXPECT_DOUBLE_EQ(*InflatedMfu(*local, 1, seconds, peak), *mfu);
  EXPECT_DOUBLE_EQ(*DeflatedMfu(*local, 1, seconds, peak), *mfu);
}

TEST(DdpAccounting, BadInputNamesTheValue) {
  auto bad_batch = LocalStepFlops(1e9, 0, 64, 1);
  ASSERT_FALSE(bad_batch.ok());
  EXPECT_NE(bad_batch.status().message().find("batch=0"), std::string::npos);
  auto bad_accum = LocalStepFlops(1e9, 4, 64, 0);
  ASSERT_FALSE(bad_accum.ok());
  EXPECT_NE(bad_accum.status().message().find("grad_accum=0"), std::string::npos);
  EXPECT_FALSE(LocalStepFlops(-1, 4, 64, 1).ok());
  auto bad_world = InflatedMfu(1e12, 0, 1, 1e12);
  ASSERT_FALSE(bad_world.ok());
  EXPECT_NE(bad_world.status().message().find("world=0"), std::string::npos);
  EXPECT_FALSE(PerRankMfu(1e12, 0, 1e12).ok());
  EXPECT_FALSE(ScalingRatio(0.3, 0).ok());
}

TEST(DdpAccounting, ScalingRatioAndRankSummary) {
  EXPECT_DOUBLE_EQ(*ScalingRatio(0.3, 0.4), 0.75);
  auto s = SummariseRanks({0.30, 0.10, 0.40, 0.20});
  ASSERT_TRUE(s.ok());
  EXPECT_DOUBLE_EQ(s->min, 0.10);
  EXPECT_EQ(s->argmin, 1);
  EXPECT_DOUBLE_EQ(s->max, 0.40);
  EXPECT_EQ(s->argmax, 2);
  EXPECT_DOUBLE_EQ(s->median, 0.25);
  EXPECT_DOUBLE_EQ(s->mean, 0.25);
  EXPECT_DOUBLE_EQ(SummariseRanks({0.5, 0.1, 0.3})->median, 0.3);
  EXPECT_FALSE(SummariseRanks({}).ok());
}

}  // namespace
}  // namespace macro
