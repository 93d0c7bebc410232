// Tests for stats.h against known values. Reference numbers: scipy.stats.mannwhitneyu's
// documentation example (males vs females, U1 = 17, exact two-sided p = 0.1111111111111111,
// asymptotic p = 0.11134688653314041), and values computed by tools/gate/testdata/mwu_reference.py
// (brute-force enumeration of every split for exact p-values; the textbook normal formula with
// tie and continuity corrections otherwise), committed here as numbers.
#include "tools/gate/stats.h"

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

// Darwin's Zea mays differences (scipy.stats.wilcoxon's documented example): W+ = 96 and the
// exact one-sided p = 676 / 2^15 = 0.0206298828125, counted by enumerating every sign pattern.
TEST(WilcoxonSignedRankTest, DarwinExampleExact) {
  std::vector<double> d = {6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75};
  auto g = WilcoxonSignedRank(d, Alternative::kGreater);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(g->exact);
  EXPECT_DOUBLE_EQ(g->w_plus, 96);
  EXPECT_DOUBLE_EQ(g->p_value, 676.0 / 32768.0);
  auto l = WilcoxonSignedRank(d, Alternative::kLess);
  ASSERT_TRUE(l.ok());
  EXPECT_GT(l->p_value, 0.97);
}

TEST(WilcoxonSignedRankTest, NinePairsAllWorseGivesTheSmallestP) {
  // Nine rounds, every one slower: p = 1 / 2^9, below alpha / 7 = 0.00714 (Holm over 7 cases).
  std::vector<double> d = {0.21, 0.25, 0.19, 0.3, 0.22, 0.24, 0.26, 0.2, 0.23};
  auto r = WilcoxonSignedRank(d, Alternative::kGreater);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->p_value, 1.0 / 512);
  EXPECT_LT(r->p_value, 0.05 / 7);
}

TEST(WilcoxonSignedRankTest, CountsSumToTwoToTheN) {
  for (int n : {1, 2, 5, 9, 20}) {
    std::vector<double> c = ExactSignedRankCounts(n);
    double total = 0;
    for (double x : c) total += x;
    EXPECT_DOUBLE_EQ(total, std::pow(2.0, n)) << n;
    EXPECT_EQ(c.size(), static_cast<size_t>(n * (n + 1) / 2 + 1));
  }
}

TEST(WilcoxonSignedRankTest, ZerosDroppedTiesUseTheNormalApproximation) {
  auto all_zero = WilcoxonSignedRank({0, 0, 0}, Alternative::kGreater);
  ASSERT_TRUE(all_zero.ok());
  EXPECT_EQ(all_zero->n, 0);
  EXPECT_DOUBLE_EQ(all_zero->p_value, 1);
  // |d| ties (1, 1): normal approximation. n = 4, W+ = 1.5 + 3 + 4 = 8.5, mean 5,
  // var = 4*5*9/24 - (8 - 2)/48 = 7.375; p = sf((8.5 - 5 - 0.5) / sqrt(7.375)).
  auto t = WilcoxonSignedRank({1, -1, 0, 2, 3}, Alternative::kGreater);
  ASSERT_TRUE(t.ok());
  EXPECT_FALSE(t->exact);
  EXPECT_EQ(t->n, 4);
  EXPECT_DOUBLE_EQ(t->w_plus, 8.5);
  EXPECT_NEAR(t->p_value, NormalSf(3.0 / std::sqrt(7.375)), 1e-12);
  EXPECT_FALSE(WilcoxonSignedRank({}, Alternative::kGreater).ok());
  EXPECT_FALSE(WilcoxonSignedRank({1, NAN}, Alternative::kGreater).ok());
}

}  // namespace
}  // namespace stats
