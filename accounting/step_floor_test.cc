#include "accounting/step_floor.h"

#include "gtest/gtest.h"

namespace accounting {
namespace {

// GPT-2 124M (124,475,904 parameters) on a machine whose in-place roof is 40 GB/s, its GEMMs
// 600 ms at their isolated rates, a 750 ms step.
StepFloorInput Gpt2() { return StepFloorInput{0.6, 124475904, 40e9, 0.75}; }

TEST(StepFloor, GemmsAtTheirRatesPlusAdamWAtTheInPlaceRoof) {
  auto f = ComputeStepFloor(Gpt2());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_DOUBLE_EQ(f->adamw_bytes, 124475904.0 * 28);  // 3.485 GB
  // In place, AdamW moves what it counts: its 3.485 GB at 40 GB/s in 87 ms.
  EXPECT_NEAR(f->adamw_seconds, 124475904.0 * 28 / 40e9, 1e-12);
  EXPECT_NEAR(f->seconds, 0.6 + 124475904.0 * 28 / 40e9, 1e-12);
  EXPECT_NEAR(f->step_multiple, 0.75 / f->seconds, 1e-12);
  EXPECT_NEAR(f->step_multiple, 1.0915, 1e-4);  // 0.75 / (0.6 + 0.0871)
}

// The CPU's bf16 step writes each weight's bf16 copy in AdamW's pass: 30 bytes a parameter.
TEST(StepFloor, Bf16CopyAddsTwoBytesAParameter) {
  StepFloorInput in = Gpt2();
  in.adamw_bytes_per_param = kAdamWBytesPerBf16CopyParam;
  auto f = ComputeStepFloor(in);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_DOUBLE_EQ(f->adamw_bytes, 124475904.0 * 30);
  EXPECT_NEAR(f->adamw_seconds, 124475904.0 * 30 / 40e9, 1e-12);
  auto r = AdamWBytesPerSecond(1000, 1e-6, kAdamWBytesPerBf16CopyParam);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(*r, 30e9);
  in.adamw_bytes_per_param = 0;
  EXPECT_FALSE(ComputeStepFloor(in).ok());
}

TEST(StepFloor, AdamWBytesPerSecond) {
  auto r = AdamWBytesPerSecond(1000, 1e-6);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(*r, 28e9);
  EXPECT_FALSE(AdamWBytesPerSecond(0, 1).ok());
  EXPECT_FALSE(AdamWBytesPerSecond(1000, 0).ok());
}

TEST(StepFloor, ErrorsNameTheField) {
  for (auto bad : {+[](StepFloorInput* in) { in->params = 0; },
                   +[](StepFloorInput* in) { in->in_place_bytes_per_s = 0; },
                   +[](StepFloorInput* in) { in->step_seconds = -1; },
                   +[](StepFloorInput* in) { in->gemm_seconds_at_rates = 1.0 / 0.0; }}) {
    StepFloorInput in = Gpt2();
    bad(&in);
    auto f = ComputeStepFloor(in);
    EXPECT_FALSE(f.ok());
  }
  StepFloorInput in = Gpt2();
  in.in_place_bytes_per_s = 0;
  EXPECT_NE(ComputeStepFloor(in).status().message().find("in_place_bytes_per_s"), std::string::npos);
}

}  // namespace
}  // namespace accounting
