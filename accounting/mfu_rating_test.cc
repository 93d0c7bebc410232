// MFU rating bands (mfu_rating.h), edges included.
#include "accounting/mfu_rating.h"

#include "gtest/gtest.h"

namespace accounting {
namespace {

TEST(MfuRating, Bands) {
  EXPECT_EQ(RateMfu(0.05).name, "problem");
  EXPECT_EQ(RateMfu(0.1999).name, "problem");
  EXPECT_EQ(RateMfu(0.20).name, "low");
  EXPECT_EQ(RateMfu(0.34).name, "low");
  EXPECT_EQ(RateMfu(0.35).name, "fair");
  EXPECT_EQ(RateMfu(0.45).name, "good");
  EXPECT_EQ(RateMfu(0.549).name, "good");
  EXPECT_EQ(RateMfu(0.55).name, "excellent");
  EXPECT_EQ(RateMfu(0.60).name, "check-formula");
  EXPECT_EQ(RateMfu(1.3).name, "check-formula");
}

TEST(MfuRating, BandsAreContiguous) {
  const auto& b = MfuBands();
  ASSERT_EQ(b.size(), 6u);
  for (size_t i = 1; i < b.size(); ++i) EXPECT_EQ(b[i].lower, b[i - 1].upper);
}

}  // namespace
}  // namespace accounting
