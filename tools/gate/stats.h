// Two-sample statistics for the performance gate: medians and the Mann-Whitney U test.
//
// Mann-Whitney U (Wilcoxon rank-sum) asks whether one sample tends to be larger than the
// other without assuming a distribution, which suits benchmark timings (skewed, with a long
// tail from a shared machine). Conventions follow scipy.stats.mannwhitneyu:
//   U1 = R1 - n1 (n1 + 1) / 2, R1 the sum of x's mid-ranks in the pooled sample, i.e. the
//   number of pairs (x_i, y_j) with x_i > y_j, ties counting one half.
//   kGreater: H1 "x is stochastically greater than y", p = P(U >= U1).
//   kLess:    H1 "x is stochastically less than y",    p = P(U <= U1).
//   kTwoSided: p = min(1, 2 min(P(U >= U1), P(U <= U1))).
// Method:
//   exact  when neither sample has more than kExactMaxN values and there are no ties: the
//          null distribution of U is counted exactly (every split of the pooled ranks equally
//          likely);
//   normal otherwise: z with the tie correction of the variance,
//          var = n1 n2 / 12 ((n + 1) - sum(t^3 - t) / (n (n - 1))),
//          and a continuity correction of 0.5 towards the mean (scipy's use_continuity=True).
//          When every value is tied (var = 0) the p-value is 1.
#ifndef TOOLS_GATE_STATS_H_
#define TOOLS_GATE_STATS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace stats {

enum class Alternative { kTwoSided, kGreater, kLess };

// kAuto: exact when allowed (see above), else normal. kNormal forces the approximation
// (scipy's method="asymptotic"); kExact without ties and within kExactMaxN, else an error.
enum class Method { kAuto, kExact, kNormal };

struct MannWhitneyResult {
  double u1 = 0;  // U statistic of the first sample
  double p_value = 1;
  bool exact = false;  // true: exact null distribution; false: normal approximation
  bool ties = false;   // the pooled sample had tied values
};

// Largest sample size (each side) for which the exact distribution is used.
inline constexpr int kExactMaxN = 50;

// Fails when either sample is empty or holds a non-finite value.
absl::StatusOr<MannWhitneyResult> MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y,
                                               Alternative alternative, Method method = Method::kAuto);

// Wilcoxon signed-rank test on paired differences d_i (e.g. log(new_i / old_i) for rounds
// run side by side): does d tend to be above zero? Conventions follow
// scipy.stats.wilcoxon(d, zero_method="wilcox"): zeros are dropped, W+ is the sum of the
// mid-ranks of |d_i| over the positive d_i.
//   kGreater: H1 "d tends to be positive", p = P(W+ >= observed).
//   kLess:    H1 "d tends to be negative", p = P(W+ <= observed).
// exact (all 2^n sign patterns equally likely) when n <= kExactMaxN after dropping zeros and
// there are no ties in |d|; otherwise the normal approximation with the tie correction
// var = n (n + 1) (2n + 1) / 24 - sum(t^3 - t) / 48 and a continuity correction of 0.5.
// With every d zero the p-value is 1. Fails on an empty sample or a non-finite value.
struct SignedRankResult {
  double w_plus = 0;
  double p_value = 1;
  bool exact = false;
  int n = 0;  // non-zero differences used
};
absl::StatusOr<SignedRankResult> WilcoxonSignedRank(const std::vector<double>& d, Alternative alternative);

// Number of sign patterns of ranks 1..n whose positive ranks sum to w, for w = 0 .. n(n+1)/2.
std::vector<double> ExactSignedRankCounts(int n);

// Median (mean of the two middle values for an even count). Fails on an empty sample.
absl::StatusOr<double> Median(std::vector<double> v);

// Quantile q in [0, 1] with linear interpolation between order statistics (numpy's default,
// R's type 7): position q (n - 1). Fails on an empty sample or q outside [0, 1].
absl::StatusOr<double> Quantile(std::vector<double> v, double q);

// Number of splits of n1 + n2 distinct ranks whose U1 equals u, for u = 0 .. n1 n2
// (the exact null distribution, unnormalised). Exposed for tests.
std::vector<double> ExactUCounts(int n1, int n2);

// Holm's step-down adjustment of m p-values for the family-wise error rate (R's
// p.adjust(p, "holm")): sort ascending, p_adj(i) = max over j <= i of min(1, (m - j + 1) p(j)),
// returned in the input order. Rejecting where p_adj < alpha keeps the chance of any false
// rejection among the m tests at or below alpha.
std::vector<double> HolmAdjust(const std::vector<double>& p);

// Upper tail of the standard normal, P(Z >= z).
double NormalSf(double z);

}  // namespace stats

#endif  // TOOLS_GATE_STATS_H_
