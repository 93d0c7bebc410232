// E-divisive means (Matteson and James, "A Nonparametric Approach for Multiple Change Point
// Analysis of Multivariate Data", JASA 2014): the change-point method of Hunter (now Apache Otava)
// and MongoDB's CI, here for one series of per-commit values.
//
// For a segment split into X (m points) and Y (n points) the divergence is, with alpha = 1,
//   Q(X, Y) = m n / (m + n) * ( 2/(m n) sum |x - y| - 1/C(m,2) sum_{i<k} |x_i - x_k|
//                                                   - 1/C(n,2) sum_{j<k} |y_j - y_k| ),
// the energy distance of the two samples scaled by their sizes: zero when they come from one
// distribution, large when their locations differ. Hierarchically: among the current segments,
// the split with the largest Q is the candidate; a permutation test decides whether it is real
// (each segment's points shuffled within it, the largest Q over all segments recomputed, p =
// (1 + #{permuted >= observed}) / (1 + permutations)); while p < significance the split is kept
// and the search goes on in the pieces. Every segment keeps at least min_size points. The
// shuffles come from a seeded generator, so a series gives the same answer on every machine.
#ifndef TOOLS_HISTORY_EDIVISIVE_H_
#define TOOLS_HISTORY_EDIVISIVE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace history {

// The most permutations a test may take: p-values resolve to 1e-5, and the time grows with them
// (2e9 took about 40 minutes on 30 runs).
inline constexpr int kMaxPermutations = 100000;

// The fewest permutations that can give a p-value below `significance` (p >= 1/(permutations + 1)).
int MinPermutations(double significance);

struct EDivisiveOptions {
  double significance = 0.01;  // a split is kept when its permutation p-value is below this
  int permutations = 499;      // p-values resolve to 1/500; 1 to kMaxPermutations
  int min_size = 3;            // points per segment, at least 2
  uint64_t seed = 1;
};

struct ChangePoint {
  int index = 0;       // the first point of the new segment
  double q = 0;        // the divergence of the split
  double p_value = 1;  // of the permutation test that accepted it
};

// The change points of x, by index. InvalidArgument for a non-finite value or bad options.
absl::StatusOr<std::vector<ChangePoint>> EDivisive(const std::vector<double>& x,
                                                   const EDivisiveOptions& options = {});

// Median of v (the mean of the middle two for an even count); 0 for none.
double Median(std::vector<double> v);

// Each change point of x with the medians of the segments on either side of it (a segment runs
// to the neighbouring change point or the series' end), their change (after / before - 1; 0 when
// before is 0) and whether it is for the worse: lower when higher is better, else higher.
struct SegmentChange {
  int index = 0;  // the first point of the new segment
  double before = 0, after = 0, change = 0;
  double p_value = 1;
  bool worse = false;
};
std::vector<SegmentChange> DescribeChanges(const std::vector<double>& x, const std::vector<ChangePoint>& cps,
                                           bool higher_is_better);

// Deterministic helpers, shared with the tests and the detection-power tool.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  double Uniform();  // in [0, 1)
  double Normal();   // standard normal (Box-Muller)

 private:
  uint64_t state_;
};

}  // namespace history

#endif  // TOOLS_HISTORY_EDIVISIVE_H_
