// Families, labels and matmul sizes from the case names the project's binaries register.
#include "tools/report/family.h"

#include <set>

#include "gtest/gtest.h"

namespace report {
namespace {

TEST(Family, FromCaseNames) {
  EXPECT_EQ(FamilyOf("BM_Matmul/cpu/fp32/M:256/K:256/N:256/min_time:0.010/manual_time"), "matmul cpu/fp32");
  EXPECT_EQ(FamilyOf("BM_Matmul/cpu/onednn/fp32/M:64/K:768/N:2304/manual_time"), "matmul cpu/onednn/fp32");
  EXPECT_EQ(FamilyOf("BM_Matmul/cuda/bf16/M:4096/K:4096/N:4096/manual_time"), "matmul cuda/bf16");
  EXPECT_EQ(FamilyOf("BM_Elementwise/cpu/layernorm/C:768/N:16777216"), "elementwise cpu");
  EXPECT_EQ(FamilyOf("BM_GptStep/gpt2/cpu/fp32/B:4/T:64/iterations:10/manual_time"), "gpt_step cpu");
  EXPECT_EQ(FamilyOf("BM_Ceiling/cpu/fma/avx2"), "ceiling cpu");
  EXPECT_EQ(FamilyOf("BM_Calibration/cpu/fma/threads:2/real_time"), "calibration cpu");
  EXPECT_EQ(FamilyOf("BM_Something"), "something");
}

TEST(Family, StripRunSuffixes) {
  EXPECT_EQ(StripRunSuffixes("BM_Matmul/cpu/fp32/M:256/K:256/N:256/min_time:0.010/manual_time"),
            "BM_Matmul/cpu/fp32/M:256/K:256/N:256");
  EXPECT_EQ(StripRunSuffixes("BM_GptStep/x/iterations:10/repeats:3/manual_time"), "BM_GptStep/x");
  EXPECT_EQ(StripRunSuffixes("BM_Calibration/cpu/fma/threads:2/real_time"), "BM_Calibration/cpu/fma");
}

TEST(Family, LabelsAndSizes) {
  EXPECT_EQ(ShortLabel("BM_Matmul/cpu/fp32/M:256/K:256/N:256/manual_time"), "256\xc2\xb3");
  EXPECT_EQ(ShortLabel("BM_Matmul/cpu/fp32/M:256/K:768/N:2304/manual_time"), "256x768x2304");
  EXPECT_EQ(ShortLabel("BM_Elementwise/cpu/gelu/N:16777216"), "gelu 16M");
  EXPECT_EQ(ShortLabel("BM_Elementwise/cpu/add/N:65536"), "add 64k");
  EXPECT_EQ(ShortLabel("BM_GptStep/gpt2/cpu/fp32/B:4/T:64/data:real/iterations:10/manual_time"),
            "gpt2 B:4 T:64 real");
  EXPECT_EQ(ShortLabel("BM_Ceiling/cpu/fma/avx2"), "fma avx2");
  auto d = MatmulDimsOf("BM_Matmul/cpu/fp32/M:64/K:512/N:4096");
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->k, 512);
  EXPECT_NEAR(d->EquivalentSize(), 512.0, 1e-9);  // cbrt(2^6 x 2^9 x 2^12) = 2^9
  EXPECT_DOUBLE_EQ(MatmulDimsOf("BM_Matmul/cpu/fp32/M:512/K:512/N:512")->EquivalentSize(), 512);
  EXPECT_FALSE(MatmulDimsOf("BM_Elementwise/cpu/gelu/N:64").has_value());
  EXPECT_FALSE(MatmulDimsOf("BM_Matmul/cpu/fp32/M:0/K:1/N:1").has_value());
  EXPECT_EQ(DtypeOf("BM_Matmul/cuda/bf16/M:1/K:1/N:1"), "bf16");
  EXPECT_EQ(DtypeOf("BM_Elementwise/cpu/gelu/N:64"), "");
}

TEST(Family, ColoursDistinctAndStable) {
  std::set<std::string> seen;
  for (int i = 0; i < 8; ++i) seen.insert(FamilyColour(i));
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_EQ(FamilyColour(8), FamilyColour(0));
  EXPECT_EQ(FamilyOrder({"b", "a", "b"}), (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace report
