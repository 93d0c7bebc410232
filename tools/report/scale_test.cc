// Coordinate maths of the charts: log and linear scales, ticks, nice domains.
#include "tools/report/scale.h"

#include <cmath>

#include "gtest/gtest.h"

namespace report {
namespace {

TEST(LogScale, MapsDecadesLinearly) {
  // 1e9 .. 1e12 FLOP/s onto y = 400 (bottom) .. 100 (top): 100 px per decade.
  LogScale y(1e9, 1e12, 400, 100);
  EXPECT_DOUBLE_EQ(y(1e9), 400);
  EXPECT_DOUBLE_EQ(y(1e12), 100);
  EXPECT_NEAR(y(1e10), 300, 1e-9);
  EXPECT_NEAR(y(1e11), 200, 1e-9);
  EXPECT_NEAR(y(std::sqrt(10.0) * 1e10), 250, 1e-9);  // half a decade
  EXPECT_NEAR(y(2e10), 300 - 100 * std::log10(2.0), 1e-9);
  EXPECT_DOUBLE_EQ(y.PixelsPerDecade(), -100);
  // Values outside the domain extrapolate (the chart clips or widens the domain first).
  EXPECT_NEAR(y(1e8), 500, 1e-9);
}

TEST(LogScale, InvertIsTheInverse) {
  LogScale x(0.01, 1000, 92, 730);
  for (double v : {0.01, 0.3, 1.0, 7.5, 999.0}) EXPECT_NEAR(x.Invert(x(v)) / v, 1.0, 1e-12) << v;
}

TEST(LogScale, NonPositiveAndBadDomains) {
  LogScale x(1, 100, 0, 200);
  EXPECT_TRUE(std::isnan(x(0)));
  EXPECT_TRUE(std::isnan(x(-5)));
  EXPECT_TRUE(std::isnan(x(std::nan(""))));
  EXPECT_TRUE(std::isnan(x(INFINITY)));
  LogScale bad(0, -1, 0, 100);  // replaced by [1, 10]
  EXPECT_DOUBLE_EQ(bad.lo(), 1);
  EXPECT_DOUBLE_EQ(bad.hi(), 10);
  EXPECT_DOUBLE_EQ(bad(10), 100);
}

TEST(LogScale, Ticks) {
  LogScale x(0.01, 1000, 0, 500);
  std::vector<double> want = {0.01, 0.1, 1, 10, 100, 1000};
  auto got = x.DecadeTicks();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i] / want[i], 1, 1e-12);
  LogScale s(64, 16384, 0, 800);
  auto p2 = s.PowerOfTwoTicks();
  ASSERT_EQ(p2.size(), 9u);
  EXPECT_EQ(p2.front(), 64);
  EXPECT_EQ(p2.back(), 16384);
  // Powers of two are evenly spaced on a log axis.
  EXPECT_NEAR(s(128) - s(64), s(16384) - s(8192), 1e-9);
  EXPECT_NEAR(s(128) - s(64), 100, 1e-9);
}

TEST(NiceLogDomain, DecadeBoundsAndMinimumWidth) {
  Domain d = NiceLogDomain({0.25, 3.9, 12}, 1);
  EXPECT_DOUBLE_EQ(d.lo, 0.1);
  EXPECT_DOUBLE_EQ(d.hi, 100);
  d = NiceLogDomain({2e11}, 3);  // one value widened to three decades
  EXPECT_NEAR(std::log10(d.hi / d.lo), 3, 1e-9);
  EXPECT_LE(d.lo, 2e11);
  EXPECT_GE(d.hi, 2e11);
  d = NiceLogDomain({100}, 1);  // an exact power of ten still gets a decade
  EXPECT_DOUBLE_EQ(d.lo, 100);
  EXPECT_DOUBLE_EQ(d.hi, 1000);
  d = NiceLogDomain({0, -1, std::nan(""), INFINITY}, 1);  // nothing usable
  EXPECT_DOUBLE_EQ(d.lo, 1);
  EXPECT_DOUBLE_EQ(d.hi, 10);
}

TEST(LinearScale, MapsAndTicks) {
  LinearScale y(0, 250, 400, 100);
  EXPECT_DOUBLE_EQ(y(0), 400);
  EXPECT_DOUBLE_EQ(y(250), 100);
  EXPECT_DOUBLE_EQ(y(125), 250);
  auto t = y.Ticks(6);
  ASSERT_FALSE(t.empty());
  EXPECT_DOUBLE_EQ(t.front(), 0);
  EXPECT_DOUBLE_EQ(t[1] - t[0], 50);  // 250 / 6 = 41.7 -> step 50
  EXPECT_DOUBLE_EQ(t.back(), 250);
  LinearScale flat(3, 3, 0, 10);  // zero width widened
  EXPECT_DOUBLE_EQ(flat(3), 5);
}

TEST(NiceDomains, LinearFromZeroAndPowersOfTwo) {
  EXPECT_DOUBLE_EQ(NiceLinearDomainFromZero({187, 220}, 0.05).hi, 250);
  EXPECT_DOUBLE_EQ(NiceLinearDomainFromZero({9}, 0.05).hi, 10);
  EXPECT_DOUBLE_EQ(NiceLinearDomainFromZero({}, 0.05).hi, 1);
  Domain p = PowerOfTwoDomain({64, 100, 4096});
  EXPECT_DOUBLE_EQ(p.lo, 64);
  EXPECT_DOUBLE_EQ(p.hi, 4096);
  p = PowerOfTwoDomain({256});
  EXPECT_DOUBLE_EQ(p.lo, 128);
  EXPECT_DOUBLE_EQ(p.hi, 512);
}

}  // namespace
}  // namespace report
