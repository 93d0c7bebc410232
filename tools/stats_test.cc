// Tests for stats.h against known values. Reference numbers: scipy.stats.mannwhitneyu's
// documentation example (males vs females, U1 = 17, exact two-sided p = 0.1111111111111111,
// asymptotic p = 0.11134688653314041), and values computed by tools/testdata/mwu_reference.py
// (brute-force enumeration of every split for exact p-values; the textbook normal formula with
// tie and continuity corrections otherwise), committed here as numbers.
#include "tools/stats.h"

#include <cmath>
#include <numeric>

#include "gtest/gtest.h"

namespace stats {
namespace {

const std::vector<double> kMales = {19, 22, 16, 29, 24};
const std::vector<double> kFemales = {20, 11, 17, 12};

TEST(MannWhitneyTest, ScipyDocExampleExact) {
  auto r = MannWhitneyU(kMales, kFemales, Alternative::kTwoSided);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->exact);
  EXPECT_DOUBLE_EQ(r->u1, 17.0);
  EXPECT_NEAR(r->p_value, 0.1111111111111111, 1e-12);

  auto g = MannWhitneyU(kMales, kFemales, Alternative::kGreater);
  ASSERT_TRUE(g.ok());
  EXPECT_NEAR(g->p_value, 0.05555555555555555, 1e-12);  // 7 / 126
  auto l = MannWhitneyU(kMales, kFemales, Alternative::kLess);
  ASSERT_TRUE(l.ok());
  EXPECT_NEAR(l->p_value, 0.9682539682539683, 1e-12);  // 122 / 126
}

TEST(MannWhitneyTest, TiesUseNormalApproximationWithTieCorrection) {
  // Ties across the samples force the normal approximation (values from the reference script).
  const std::vector<double> a = {1, 2, 2, 3, 4, 5};
  const std::vector<double> b = {2, 3, 3, 6, 7, 8, 9};
  auto two = MannWhitneyU(a, b, Alternative::kTwoSided);
  ASSERT_TRUE(two.ok());
  EXPECT_FALSE(two->exact);
  EXPECT_TRUE(two->ties);
  EXPECT_DOUBLE_EQ(two->u1, 9.0);
  EXPECT_NEAR(two->p_value, 0.09667054340670096, 1e-12);
  auto less = MannWhitneyU(a, b, Alternative::kLess);
  ASSERT_TRUE(less.ok());
  EXPECT_NEAR(less->p_value, 0.04833527170335048, 1e-12);
  auto greater = MannWhitneyU(a, b, Alternative::kGreater);
  ASSERT_TRUE(greater.ok());
  EXPECT_NEAR(greater->p_value, 0.9645148164258601, 1e-12);
}

TEST(MannWhitneyTest, LargeSamplesUseNormalApproximationLikeScipyAsymptotic) {
  // 60 vs 60 exceeds kExactMaxN: the normal formula. Interleaved values 0..119, x the even ones:
  // U1 = sum over x_i of #(y below it) = 0 + 1 + ... + 59 = 1770; mean 1800; sd sqrt(3600*121/12).
  std::vector<double> x, y;
  for (int i = 0; i < 60; ++i) {
    x.push_back(2 * i);
    y.push_back(2 * i + 1);
  }
  auto r = MannWhitneyU(x, y, Alternative::kLess);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->exact);
  EXPECT_DOUBLE_EQ(r->u1, 1770.0);
  double sd = std::sqrt(3600.0 * 121.0 / 12.0);
  EXPECT_NEAR(r->p_value, 0.5 * std::erfc(((1800.0 - 1770.0 - 0.5) / sd) / std::sqrt(2.0)), 1e-15);
  EXPECT_NEAR(r->p_value, 0.4385, 1e-4);
}

TEST(MannWhitneyTest, NineVersusNineShiftedIsTheSmallestExactP) {
  // Every y above every x: U1 = 81, P(U >= 81) = 1 / C(18, 9) = 1 / 48620.
  const std::vector<double> x = {10.1, 10.3, 9.9, 10.0, 10.2, 10.4, 10.05, 10.15, 10.25};
  std::vector<double> y;
  for (double v : x) y.push_back(v * 1.25);
  auto r = MannWhitneyU(y, x, Alternative::kGreater);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->exact);
  EXPECT_DOUBLE_EQ(r->u1, 81.0);
  EXPECT_NEAR(r->p_value, 1.0 / 48620.0, 1e-15);
  auto two = MannWhitneyU(y, x, Alternative::kTwoSided);
  ASSERT_TRUE(two.ok());
  EXPECT_NEAR(two->p_value, 4.113533525298231e-05, 1e-15);
}

TEST(MannWhitneyTest, InterleavedSamplesAreNotSignificant) {
  const std::vector<double> x = {1, 3, 5, 7, 9, 11, 13, 15, 17};
  const std::vector<double> y = {2, 4, 6, 8, 10, 12, 14, 16, 18};
  auto r = MannWhitneyU(x, y, Alternative::kTwoSided);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->u1, 36.0);
  EXPECT_NEAR(r->p_value, 0.7304401480872069, 1e-12);
  auto g = MannWhitneyU(x, y, Alternative::kGreater);
  ASSERT_TRUE(g.ok());
  EXPECT_NEAR(g->p_value, 0.6667626491155902, 1e-12);
}

TEST(MannWhitneyTest, AllTiedGivesPOne) {
  auto r = MannWhitneyU({5, 5, 5}, {5, 5}, Alternative::kTwoSided);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->p_value, 1.0);
  EXPECT_DOUBLE_EQ(r->u1, 3.0);
}

TEST(MannWhitneyTest, RejectsEmptyAndNonFinite) {
  EXPECT_FALSE(MannWhitneyU({}, {1.0}, Alternative::kTwoSided).ok());
  auto r = MannWhitneyU({1.0, NAN}, {1.0}, Alternative::kTwoSided);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("x[1]"), std::string::npos) << r.status();
}

TEST(ExactUCountsTest, SumsToBinomialAndIsSymmetric) {
  std::vector<double> c = ExactUCounts(9, 9);
  ASSERT_EQ(c.size(), 82u);
  EXPECT_DOUBLE_EQ(std::accumulate(c.begin(), c.end(), 0.0), 48620.0);
  for (size_t u = 0; u < c.size(); ++u) EXPECT_DOUBLE_EQ(c[u], c[c.size() - 1 - u]);
  // n1 = 5, n2 = 4: the tail used by the scipy example, U >= 17 in 1 + 1 + 2 + 3 = 7 ways.
  std::vector<double> d = ExactUCounts(5, 4);
  EXPECT_DOUBLE_EQ(d[20] + d[19] + d[18] + d[17], 7.0);
}

TEST(HolmTest, MatchesRsPAdjust) {
  // p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
  std::vector<double> adj = HolmAdjust({0.01, 0.04, 0.03, 0.005});
  ASSERT_EQ(adj.size(), 4u);
  EXPECT_NEAR(adj[0], 0.03, 1e-15);
  EXPECT_NEAR(adj[1], 0.06, 1e-15);
  EXPECT_NEAR(adj[2], 0.06, 1e-15);
  EXPECT_NEAR(adj[3], 0.02, 1e-15);
  // Capped at 1; one test is unchanged; none is empty.
  EXPECT_DOUBLE_EQ(HolmAdjust({0.5, 0.9})[0], 1.0);
  EXPECT_DOUBLE_EQ(HolmAdjust({0.03})[0], 0.03);
  EXPECT_TRUE(HolmAdjust({}).empty());
}

TEST(QuantileTest, LinearInterpolationLikeNumpy) {
  // numpy.quantile([1, 2, 3, 4], [0.25, 0.5, 0.75]) = 1.75, 2.5, 3.25
  EXPECT_DOUBLE_EQ(*Quantile({4, 1, 3, 2}, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(*Quantile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(*Quantile({4, 1, 3, 2}, 0.75), 3.25);
  EXPECT_DOUBLE_EQ(*Quantile({1, 2, 3, 4, 5, 6, 7, 8, 9}, 0.25), 3.0);
  EXPECT_DOUBLE_EQ(*Quantile({5}, 0.9), 5.0);
  EXPECT_FALSE(Quantile({}, 0.5).ok());
  EXPECT_FALSE(Quantile({1, 2}, 1.5).ok());
}

TEST(MedianTest, OddEvenEmpty) {
  EXPECT_DOUBLE_EQ(*Median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(*Median({4, 1, 3, 2}), 2.5);
  EXPECT_FALSE(Median({}).ok());
}

}  // namespace
}  // namespace stats
