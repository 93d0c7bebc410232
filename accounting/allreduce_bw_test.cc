// busbw = algbw x 2(n-1)/n (nccl-tests), with its edge cases.
#include "accounting/allreduce_bw.h"

#include "gtest/gtest.h"

namespace accounting {
namespace {

TEST(AllreduceBandwidth, NcclTestsDefinition) {
  auto bw = AllreduceBandwidth(int64_t{1} << 30, 0.01, 8);
  ASSERT_TRUE(bw.ok());
  EXPECT_DOUBLE_EQ(bw->algbw, 1073741824.0 / 0.01);
  EXPECT_DOUBLE_EQ(bw->busbw, bw->algbw * 14.0 / 8.0);              // 2 * 7 / 8 = 1.75
  EXPECT_DOUBLE_EQ(AllreduceBandwidth(1000, 1e-3, 2)->busbw, 1e6);  // factor 1 at n = 2
  EXPECT_DOUBLE_EQ(AllreduceBandwidth(1000, 1e-3, 1)->busbw, 0.0);  // nothing crosses a link
}

TEST(AllreduceBandwidth, BadInputNamesTheValue) {
  auto a = AllreduceBandwidth(0, 1, 2);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("bytes=0"), std::string::npos);
  auto b = AllreduceBandwidth(10, 0, 2);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("seconds=0"), std::string::npos);
  auto c = AllreduceBandwidth(10, 1, 0);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("ranks=0"), std::string::npos);
}

}  // namespace
}  // namespace accounting
