#include "tools/sweep/sweep_grid.h"

#include "gtest/gtest.h"

namespace sweep {
namespace {

TEST(ParseIntList, ReadsDecimalDigitsOnly) {
  auto v = ParseIntList("batch", "1,2,010,08", 100);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, (std::vector<int>{1, 2, 10, 8}));  // "010" is ten, as it reads; "08" is eight
}

TEST(ParseIntList, ErrorsNameTheFlagAndTheValue) {
  for (const char* bad : {"", "0", "-1", "1,x", "1,,2", "+3", "0x10", "1.5", " 1", "9999999999"}) {
    auto v = ParseIntList("batch", bad, 1000);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_NE(v.status().message().find("--batch="), std::string::npos) << v.status();
  }
  auto over = ParseIntList("seq", "64,4096", 1024);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.status().message().find("4096 is above 1024"), std::string::npos) << over.status();
  auto twice = ParseIntList("seq", "64,64", 1024);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("given twice"), std::string::npos) << twice.status();
}

TEST(ParseNameList, ChecksAgainstTheAllowedNames) {
  auto ok = ParseNameList("dtype", "fp32,bf16", {"fp32", "bf16"});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, (std::vector<std::string>{"fp32", "bf16"}));
  auto bad = ParseNameList("dtype", "fp32,fp8", {"fp32", "bf16"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'fp8' is not one of fp32, bf16"), std::string::npos) << bad.status();
  EXPECT_FALSE(ParseNameList("preset", "gpt2,", {}).ok());
  EXPECT_FALSE(ParseNameList("preset", "gpt2,gpt2", {}).ok());
}

TEST(GridPoints, EveryCombinationBatchFastest) {
  SweepAxes axes{{"gpt2", "llama-124m"}, {1, 2}, {32, 64}, {"fp32"}, {"none"}};
  const std::vector<SweepPoint> p = GridPoints(axes);
  ASSERT_EQ(p.size(), 8u);
  EXPECT_EQ(p[0].Name("cpu"), "BM_Sweep/gpt2/cpu/fp32/B:1/T:32/recompute:none");
  EXPECT_EQ(p[1].Name("cpu"), "BM_Sweep/gpt2/cpu/fp32/B:2/T:32/recompute:none");
  EXPECT_EQ(p[2].Name("cpu"), "BM_Sweep/gpt2/cpu/fp32/B:1/T:64/recompute:none");
  EXPECT_EQ(p[4].preset, "llama-124m");
  EXPECT_EQ(p[7].tokens(), 128);
  EXPECT_EQ(p[0].Short(), "gpt2 fp32 B=1 T=32");
  SweepPoint r = p[0];
  r.recompute = "block";
  EXPECT_EQ(r.Short(), "gpt2 fp32 B=1 T=32 recompute=block");
}

TEST(RunOrder, RepetitionsInterleaved) {
  const std::vector<SweepRun> order = RunOrder(3, 2);
  ASSERT_EQ(order.size(), 6u);
  const int points[] = {0, 1, 2, 0, 1, 2}, reps[] = {0, 0, 0, 1, 1, 1};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(order[i].point, points[i]) << i;
    EXPECT_EQ(order[i].repetition, reps[i]) << i;
  }
}

}  // namespace
}  // namespace sweep
