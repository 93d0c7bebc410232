// The cache-level knee finder on synthetic curves: a staircase with smooth transitions, clean,
// noisy and with outliers; one cache level; none; bad inputs.
#include "accounting/cache_levels.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "gtest/gtest.h"

namespace accounting {
namespace {

constexpr double kKiB = 1024, kMiB = 1024 * 1024;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Level {
  double capacity_bytes;  // the true knee
  double bytes_per_s;
};

// Two points an octave, 4 KiB to 512 MiB (35 points): the sweep's step is sqrt(2).
std::vector<double> Sizes() {
  std::vector<double> x;
  for (int k = 0; k <= 34; ++k) x.push_back(4 * kKiB * std::pow(2.0, k / 2.0));
  return x;
}

// A staircase: each level's rate up to about its capacity, then a smooth fall to the next
// (a Hill function in x, halfway at 2^0.75 x the capacity: 89% of the way at the capacity, 33% at
// twice it), `dram` beyond the last.
std::vector<SweepPoint> Staircase(const std::vector<Level>& levels, double dram) {
  std::vector<SweepPoint> curve;
  for (double x : Sizes()) {
    double y = dram;
    for (size_t l = 0; l < levels.size(); ++l) {
      const double next = l + 1 < levels.size() ? levels[l + 1].bytes_per_s : dram;
      const double mid = levels[l].capacity_bytes * std::pow(2.0, 0.75);
      y += (levels[l].bytes_per_s - next) / (1 + std::pow(x / mid, 4));
    }
    curve.push_back({x, y});
  }
  return curve;
}

const std::vector<Level> kZen3 = {{32 * kKiB, 400e9}, {512 * kKiB, 200e9}, {32 * kMiB, 100e9}};
constexpr double kDram = 25e9;

// Uniform in [1 - amplitude, 1 + amplitude] per point, from mt19937_64 (fully specified, so the
// same on every standard library).
void AddNoise(std::vector<SweepPoint>* curve, uint64_t seed, double amplitude) {
  std::mt19937_64 gen(seed);
  for (SweepPoint& p : *curve) {
    const double u = static_cast<double>(gen() >> 11) * 0x1.0p-53;  // [0, 1)
    p.bytes_per_s *= 1 + amplitude * (2 * u - 1);
  }
}

// Within one sweep step (a factor sqrt(2)) of the true knee.
void ExpectNearKnee(double found, double truth) {
  EXPECT_LE(std::fabs(std::log2(found / truth)), 0.5 + 1e-9) << found << " bytes against a knee at " << truth;
}

void ExpectStaircase(const std::vector<SweepPoint>& curve, const std::vector<LevelSpan>& spans,
                     double rate_tolerance) {
  ASSERT_EQ(spans.size(), kZen3.size() + 1);
  for (size_t l = 0; l < kZen3.size(); ++l) {
    SCOPED_TRACE(l);
    ExpectNearKnee(spans[l].capacity_bytes, kZen3[l].capacity_bytes);
    EXPECT_NEAR(spans[l].bytes_per_s / kZen3[l].bytes_per_s, 1, rate_tolerance);
    EXPECT_EQ(spans[l].capacity_bytes, curve[spans[l].last].working_set_bytes);
    EXPECT_LT(spans[l].last, spans[l + 1].first);  // in order, not overlapping
  }
  EXPECT_NEAR(spans.back().bytes_per_s / kDram, 1, rate_tolerance);
  EXPECT_EQ(spans.back().last, curve.size() - 1);
  EXPECT_EQ(spans.front().first, 0u);
}

TEST(FindCacheLevels, CleanStaircase) {
  const std::vector<SweepPoint> curve = Staircase(kZen3, kDram);
  auto spans = FindCacheLevels(curve);
  ASSERT_TRUE(spans.ok()) << spans.status();
  // A plateau after a fall starts on the fall's tail (its first point here is 11% above the
  // plateau, the second 3%): its sustained best is 3% high.
  ExpectStaircase(curve, *spans, 0.04);
  // The transitions (each a 2x or 4x fall over two or three steps) belong to no plateau.
  for (size_t l = 0; l + 1 < spans->size(); ++l) EXPECT_GE((*spans)[l + 1].first, (*spans)[l].last + 2);
}

TEST(FindCacheLevels, NoisyStaircase) {
  // +-8% a point, 20 fixed seeds: the same levels, the knees within one step. The rates within
  // 15%: two points 8% high on a tail 3% high, or a plateau starting a point earlier on the tail
  // (the median after it is less than drop / 2 = 12.5% lower).
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    std::vector<SweepPoint> curve = Staircase(kZen3, kDram);
    AddNoise(&curve, seed, 0.08);
    auto spans = FindCacheLevels(curve);
    ASSERT_TRUE(spans.ok()) << spans.status();
    ExpectStaircase(curve, *spans, 0.15);
  }
}

TEST(FindCacheLevels, OneLowPointInsideAPlateauIsNoLevel) {
  const std::vector<SweepPoint> clean = Staircase(kZen3, kDram);
  for (size_t dip : {size_t{10}, size_t{11}, size_t{20}}) {  // 128, 181 KiB (L2); 4 MiB (L3)
    SCOPED_TRACE(dip);
    std::vector<SweepPoint> curve = clean;
    curve[dip].bytes_per_s *= 0.4;
    auto spans = FindCacheLevels(curve);
    ASSERT_TRUE(spans.ok()) << spans.status();
    ExpectStaircase(curve, *spans, 0.04);
    bool inside = false;
    for (const LevelSpan& s : *spans) inside |= s.first < dip && dip < s.last;
    EXPECT_TRUE(inside) << "the low point split its plateau or ended it";
  }
}

TEST(FindCacheLevels, OneHighPointDoesNotMakeTheRestAFall) {
  // 1.6x the L2 rate at 256 KiB: against the best single point, the L2 points after it would be
  // 37% below; against the best rate two points sustain, they are not.
  std::vector<SweepPoint> curve = Staircase(kZen3, kDram);
  curve[12].bytes_per_s *= 1.6;
  auto spans = FindCacheLevels(curve);
  ASSERT_TRUE(spans.ok()) << spans.status();
  ASSERT_EQ(spans->size(), 4u);
  ExpectNearKnee((*spans)[1].capacity_bytes, 512 * kKiB);
  EXPECT_NEAR((*spans)[1].bytes_per_s / 200e9, 1, 0.05);  // not the lone 1.6x point
}

TEST(SustainedBest, TheBestOfTwoConsecutivePoints) {
  const std::vector<double> r = {5, 9, 4, 7, 8, 20, 6};
  EXPECT_EQ(SustainedBest(r, 0, 6), 8);  // min(7, 8); 20 and 9 stand alone
  EXPECT_EQ(SustainedBest(r, 0, 1), 5);
  EXPECT_EQ(SustainedBest(r, 5, 5), 20);  // one point: itself
  EXPECT_EQ(SustainedBest(r, 4, 6), 8);
  EXPECT_EQ(SustainedBest(r, 3, 2), 0);  // empty
  EXPECT_EQ(SustainedBest(r, 6, 7), 0);  // outside
}

TEST(FindCacheLevels, OneCacheLevel) {
  const std::vector<SweepPoint> curve = Staircase({{1 * kMiB, 120e9}}, 20e9);
  auto spans = FindCacheLevels(curve);
  ASSERT_TRUE(spans.ok()) << spans.status();
  ASSERT_EQ(spans->size(), 2u);
  ExpectNearKnee((*spans)[0].capacity_bytes, 1 * kMiB);
  EXPECT_NEAR((*spans)[0].bytes_per_s / 120e9, 1, 0.02);
  EXPECT_NEAR((*spans)[1].bytes_per_s / 20e9, 1, 0.05);  // on the tail of a 6x fall
}

TEST(FindCacheLevels, FlatCurveIsOneSpan) {
  std::vector<SweepPoint> curve = Staircase({}, 30e9);
  AddNoise(&curve, 7, 0.08);
  auto spans = FindCacheLevels(curve);
  ASSERT_TRUE(spans.ok()) << spans.status();
  ASSERT_EQ(spans->size(), 1u);
  EXPECT_EQ((*spans)[0].first, 0u);
  EXPECT_EQ((*spans)[0].last, curve.size() - 1);
  EXPECT_EQ((*spans)[0].capacity_bytes, curve.back().working_set_bytes);
}

TEST(FindCacheLevels, TheCurvesEnd) {
  // A lone low last point: unconfirmed, left out of the plateau, no new one.
  std::vector<SweepPoint> curve = {{1, 10}, {2, 10}, {3, 10}, {4, 5}};
  auto one = FindCacheLevels(curve);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].last, 2u);
  EXPECT_EQ((*one)[0].capacity_bytes, 3);
  // Two low points confirm the fall; the first falls steeply to the second (transition).
  curve.push_back({5, 2});
  auto two = FindCacheLevels(curve);
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[1].first, 4u);
  EXPECT_EQ((*two)[1].last, 4u);
  EXPECT_EQ((*two)[1].bytes_per_s, 2);
  // A rise (a start-up cost amortised over larger sets) is one plateau reaching its best late.
  auto rise = FindCacheLevels({{1, 2}, {2, 5}, {3, 9}, {4, 10}, {5, 10}});
  ASSERT_TRUE(rise.ok());
  ASSERT_EQ(rise->size(), 1u);
  EXPECT_EQ((*rise)[0].bytes_per_s, 10);
}

TEST(FindCacheLevels, DropIsTheSplitThreshold) {
  // A 20% step: within the default 25%, a level with drop = 0.15.
  const std::vector<SweepPoint> curve = {{1, 10}, {2, 10}, {3, 10}, {4, 8}, {5, 8}, {6, 8}};
  auto coarse = FindCacheLevels(curve);
  ASSERT_TRUE(coarse.ok());
  EXPECT_EQ(coarse->size(), 1u);
  auto fine = FindCacheLevels(curve, 0.15);
  ASSERT_TRUE(fine.ok());
  ASSERT_EQ(fine->size(), 2u);
  EXPECT_EQ((*fine)[0].capacity_bytes, 3);
  EXPECT_EQ((*fine)[1].first, 3u);
}

std::string Message(const absl::StatusOr<std::vector<LevelSpan>>& r) {
  return r.ok() ? "" : std::string(r.status().message());
}

TEST(FindCacheLevels, BadInputsNameTheValue) {
  const std::vector<SweepPoint> ok = {{1, 10}, {2, 10}, {3, 10}};
  EXPECT_NE(Message(FindCacheLevels({{1, 10}, {2, 10}})).find("2 points"), std::string::npos);
  EXPECT_NE(Message(FindCacheLevels({})).find("0 points"), std::string::npos);
  EXPECT_NE(Message(FindCacheLevels({{1, 10}, {0, 10}, {3, 10}})).find("working set 0"), std::string::npos);
  EXPECT_NE(Message(FindCacheLevels({{-1, 10}, {2, 10}, {3, 10}})).find("working set -1"), std::string::npos);
  EXPECT_NE(Message(FindCacheLevels({{1, 10}, {kNaN, 10}, {3, 10}})).find("working set nan"),
            std::string::npos);
  EXPECT_NE(Message(FindCacheLevels({{1, 10}, {2, 10}, {kInf, 10}})).find("working set inf"),
            std::string::npos);
  EXPECT_NE(Message(FindCacheLevels({{1, 10}, {2, 0}, {3, 10}})).find("bandwidth 0"), std::string::npos);
  EXPECT_NE(Message(FindCacheLevels({{1, 10}, {2, -5}, {3, 10}})).find("bandwidth -5"), std::string::npos);
  EXPECT_NE(Message(FindCacheLevels({{1, kNaN}, {2, 10}, {3, 10}})).find("bandwidth nan"), std::string::npos);
  EXPECT_NE(Message(FindCacheLevels({{1, 10}, {2, 10}, {3, kInf}})).find("bandwidth inf"), std::string::npos);
  const std::string equal = Message(FindCacheLevels({{1, 10}, {2, 10}, {2, 10}}));
  EXPECT_NE(equal.find("point 2 has working set 2"), std::string::npos) << equal;
  EXPECT_NE(equal.find("strictly increasing"), std::string::npos) << equal;
  EXPECT_FALSE(FindCacheLevels({{3, 10}, {2, 10}, {1, 10}}).ok());
  for (double drop : {0.0, 1.0, -0.1, 1.5, kNaN}) {
    SCOPED_TRACE(drop);
    const std::string m = Message(FindCacheLevels(ok, drop));
    EXPECT_NE(m.find("drop"), std::string::npos) << m;
    EXPECT_NE(m.find("(0, 1)"), std::string::npos) << m;
  }
  EXPECT_TRUE(FindCacheLevels(ok, 0.5).ok());
}

}  // namespace
}  // namespace accounting
