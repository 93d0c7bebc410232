// The knee (the smallest B x T reaching 90% of the best MFU) and the trend breaks of MFU curves.
#include "accounting/mfu_knee.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace accounting {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(FindKnee, SmallestXReachingNinetyPercentOfTheBest) {
  // Best 0.60 at 2048; 90% of it is 0.54: 512 has 0.50 (short), 1024 has 0.55 (reaches).
  const std::vector<CurvePoint> c = {{128, 0.20}, {256, 0.35}, {512, 0.50}, {1024, 0.55}, {2048, 0.60}};
  auto k = FindKnee(c);
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->index, 3u);
  EXPECT_EQ(k->x, 1024);
  EXPECT_EQ(k->y, 0.55);
  EXPECT_EQ(k->best_y, 0.60);
  EXPECT_EQ(k->best_index, 4u);
  EXPECT_NEAR(k->fraction_of_best, 0.55 / 0.60, 1e-12);
  EXPECT_GE(k->fraction_of_best, kKneeFraction);
}

TEST(FindKnee, ExactlyNinetyPercentCounts) {
  const std::vector<CurvePoint> c = {{64, 0.3}, {128, 0.45}, {256, 0.5}};
  auto k = FindKnee(c);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->x, 128);  // 0.45 == 0.9 x 0.5
}

TEST(FindKnee, FirstPointWhenItIsAlreadyNearTheBest) {
  const std::vector<CurvePoint> c = {{32, 0.58}, {64, 0.60}, {128, 0.61}, {256, 0.59}};
  auto k = FindKnee(c);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->index, 0u);
  EXPECT_EQ(k->x, 32);
  EXPECT_EQ(k->best_index, 2u);
}

TEST(FindKnee, FlatCurveKneesAtItsSmallestX) {
  // Unsorted on purpose: the knee is the smallest x, not the first point.
  const std::vector<CurvePoint> c = {{256, 0.4}, {64, 0.4}, {1024, 0.4}};
  auto k = FindKnee(c);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->index, 1u);
  EXPECT_EQ(k->x, 64);
  EXPECT_EQ(k->fraction_of_best, 1.0);
  EXPECT_EQ(k->best_index, 0u);  // the first of the equal bests
}

TEST(FindKnee, TiesAtOneXTakeTheFirstReachingPoint) {
  // Two points at 128 (B:4 T:32 and B:2 T:64): the second reaches the threshold, the first not.
  const std::vector<CurvePoint> c = {{128, 0.30}, {128, 0.46}, {256, 0.50}, {128, 0.47}};
  auto k = FindKnee(c);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->index, 1u);
}

TEST(FindKnee, NaNPointsAreLeftOut) {
  // The NaN at 64 is neither the knee nor the best; it does not poison the threshold.
  const std::vector<CurvePoint> c = {{32, 0.1}, {64, kNaN}, {128, 0.5}, {256, 0.52}};
  auto k = FindKnee(c);
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->x, 128);
  EXPECT_EQ(k->best_y, 0.52);
}

TEST(FindKnee, Errors) {
  EXPECT_FALSE(FindKnee({}).ok());
  EXPECT_FALSE(FindKnee({{64, kNaN}, {128, kNaN}}).ok());
  EXPECT_FALSE(FindKnee({{64, 0}, {128, 0}}).ok());  // no best to reach 90% of
  EXPECT_FALSE(FindKnee({{0, 0.5}}).ok());
  EXPECT_FALSE(FindKnee({{kNaN, 0.5}}).ok());
  EXPECT_FALSE(FindKnee({{64, 0.5}}, 0).ok());
  EXPECT_FALSE(FindKnee({{64, 0.5}}, 1.5).ok());
  auto one = FindKnee({{64, 0.5}});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->index, 0u);
  EXPECT_NE(std::string(FindKnee({}).status().message()).find("empty"), std::string::npos);
}

TEST(FindTrendBreaks, ADipBeyondTheSpreadIsFlagged) {
  // In log x, 256 lies halfway between 128 and 512: the line there is 0.45; 0.30 is 0.15 below,
  // far beyond the 0.02 spread. Its neighbours are judged against lines through the dip.
  const std::vector<CurvePoint> c = {
      {64, 0.30, 0.02}, {128, 0.40, 0.02}, {256, 0.30, 0.02}, {512, 0.50, 0.02}, {1024, 0.52, 0.02}};
  auto b = FindTrendBreaks(c);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_FALSE(b->empty());
  const TrendBreak* dip = nullptr;
  for (const TrendBreak& t : *b) {
    EXPECT_NE(t.index, 0u) << "an endpoint was judged";
    EXPECT_NE(t.index, 4u) << "an endpoint was judged";
    if (t.index == 2) dip = &t;
  }
  ASSERT_NE(dip, nullptr);
  EXPECT_NEAR(dip->expected_y, 0.45, 1e-12);
  EXPECT_NEAR(dip->deviation, -0.15, 1e-12);
  EXPECT_EQ(dip->allowed, 0.02);
  for (const TrendBreak& t : *b) EXPECT_LE(std::fabs(t.deviation), std::fabs(dip->deviation));
}

TEST(FindTrendBreaks, WithinTheSpreadIsNotFlagged) {
  // 256's line value is 0.45; 0.43 is 0.02 off, and the largest spread around it is 0.03.
  const std::vector<CurvePoint> c = {{128, 0.40, 0.01}, {256, 0.43, 0.01}, {512, 0.50, 0.03}};
  auto b = FindTrendBreaks(c);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->empty());
  // The same point with a spread of 0.01 everywhere is flagged.
  auto tight = FindTrendBreaks({{128, 0.40, 0.01}, {256, 0.43, 0.01}, {512, 0.50, 0.01}});
  ASSERT_TRUE(tight.ok());
  ASSERT_EQ(tight->size(), 1u);
  EXPECT_EQ((*tight)[0].index, 1u);
}

TEST(FindTrendBreaks, InterpolatesInLogX) {
  // 200 is not halfway between 100 and 400 in x, but in log x it is log(2)/log(4) = 0.5 of the way.
  auto b = FindTrendBreaks({{100, 0.2, 0.001}, {200, 0.3, 0.001}, {400, 0.4, 0.001}});
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->empty());
  auto lin = FindTrendBreaks({{100, 0.2, 0.001}, {200, 0.2 + 0.2 / 3, 0.001}, {400, 0.4, 0.001}});
  ASSERT_TRUE(lin.ok());
  ASSERT_EQ(lin->size(), 1u);  // the linear-in-x midpoint is 0.033 below the log-x line
  EXPECT_NEAR((*lin)[0].expected_y, 0.3, 1e-12);
}

TEST(FindTrendBreaks, OneRepetitionFlagsNothing) {
  // Spread 0 everywhere: the noise is unknown, so even a wild point is not judged.
  auto b = FindTrendBreaks({{64, 0.3, 0}, {128, 0.05, 0}, {256, 0.5, 0}, {512, 0.5, 0}});
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->empty());
  auto nan = FindTrendBreaks({{64, 0.3, kNaN}, {128, 0.05, 0.01}, {256, 0.5, 0.01}});
  ASSERT_TRUE(nan.ok());
  EXPECT_TRUE(nan->empty());
}

TEST(FindTrendBreaks, UnsortedInputAndNaNPoints) {
  // Sorted by x, the NaN at 256 left out: 128 (0.40), 512 (0.10), 1024 (0.50); 512 breaks the
  // line from 0.40 to 0.50 and is reported by its index in the caller's vector.
  const std::vector<CurvePoint> c = {
      {1024, 0.50, 0.01}, {256, kNaN, 0.01}, {512, 0.10, 0.01}, {128, 0.40, 0.01}};
  auto b = FindTrendBreaks(c);
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(b->size(), 1u);
  EXPECT_EQ((*b)[0].index, 2u);
}

TEST(FindTrendBreaks, ShortCurvesAndErrors) {
  auto empty = FindTrendBreaks({});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  auto two = FindTrendBreaks({{64, 0.1, 0.01}, {128, 0.9, 0.01}});
  ASSERT_TRUE(two.ok());
  EXPECT_TRUE(two->empty());  // endpoints only
  EXPECT_FALSE(FindTrendBreaks({{64, 0.1, 0.01}, {64, 0.2, 0.01}, {128, 0.3, 0.01}}).ok());
  EXPECT_FALSE(FindTrendBreaks({{0, 0.1, 0.01}, {64, 0.2, 0.01}}).ok());
  EXPECT_FALSE(FindTrendBreaks({{32, 0.1, -0.01}, {64, 0.2, 0.01}}).ok());
}

}  // namespace
}  // namespace accounting
