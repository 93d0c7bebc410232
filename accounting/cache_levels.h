// The cache levels of a bandwidth-against-working-set curve: its plateaus, found from the data.
//
// A sweep over working sets (measure/cache_sweep.h, after the Empirical Roofline Toolkit) draws a
// staircase: one plateau per level that holds the working set (L1, L2, L3), the memory (DRAM)
// plateau last, and a steep fall between each two. The knees are taken from the curve rather
// than from the cache sizes the OS reports: a VM may report its host's whole L3, the private
// levels of T threads together hold T x the per-core size, and the rate a level sustains is what
// a roof needs, not its nominal size.
//
// The rule, for a curve sorted by working set:
// - A plateau's reference rate is the best rate it sustains: the highest min(y[k-1], y[k]) over
//   consecutive points in it, not across a low one (its first point alone until it has such a
//   pair). One high point cannot raise it, so it cannot make the points after it look like a fall.
//   It is also the rate the plateau reports (SustainedBest): a single lucky point, or the first
//   point of a plateau still on the tail of the fall before it, does not set a level's roof.
// - A point is below the plateau when its rate < (1 - drop) x the reference. The plateau ends
//   where two consecutive points are below it: a fall must persist. A single low point followed
//   by one that is not below (a descheduled trial, a noisy repetition) stays inside the plateau
//   without counting towards its rate; a single low last point is left out of it (nothing after
//   it confirms or refutes the fall).
// - The transition: from the first point of the fall, a point is still falling steeply when the
//   median of the next three points (fewer at the curve's end) is lower by more than drop / 2;
//   such points belong to no plateau. The next plateau starts at the first point that is not
//   (the curve's last point at the latest). The median, not the next point alone: with 8% noise
//   a 17% step can look like a 7% one, and the plateau would start on the fall's tail.
// - The last plateau is the memory (DRAM) one when the sweep reaches well past the last-level
//   cache; a sweep that stops short of it ends on a cache plateau, and only the caller knows.
//
// drop = 0.25 by default: adjacent levels usually differ by 1.5x or more (L1 to L2 about 2x, L3 to
// DRAM 3-10x), while the noise of best-of-N trials is a few percent; a point 8% high next to one
// 8% low is a 15% fall, well within 25%. A smaller step is merged into one level: on the 2-core
// Zen 3 VM copy and triad fell only 15% from L2 (2 x 512 KiB) to L3.
//
//   std::vector<accounting::SweepPoint> curve = {{16384, 3.1e11}, {23170, 3.0e11}, ...};
//   absl::StatusOr<std::vector<accounting::LevelSpan>> spans = accounting::FindCacheLevels(curve);
//   // spans->back() is the DRAM plateau; (*spans)[0].capacity_bytes the L1 knee.
#ifndef ACCOUNTING_CACHE_LEVELS_H_
#define ACCOUNTING_CACHE_LEVELS_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"

namespace accounting {

inline constexpr double kCacheLevelDrop = 0.25;

struct SweepPoint {
  double working_set_bytes = 0;  // > 0, strictly increasing along the curve
  double bytes_per_s = 0;        // > 0
};

// One plateau of the curve.
struct LevelSpan {
  size_t first = 0, last = 0;  // indices into the curve, first <= last; points between two spans
                               // are the transition, in none
  double capacity_bytes = 0;   // the working set of `last`: the largest still at the plateau's rate
  double bytes_per_s = 0;      // SustainedBest of the span's rates
};

// The best rate a run of a curve sustains: the highest min(rates[k - 1], rates[k]) for
// first < k <= last; rates[first] when first == last; 0 when the run is empty or outside `rates`.
double SustainedBest(const std::vector<double>& rates, size_t first, size_t last);

// The plateaus, smallest working set first; the last is the memory (DRAM) one. Errors: fewer
// than 3 points, a working set or rate that is not finite or not > 0, working sets not strictly
// increasing, drop outside (0, 1).
absl::StatusOr<std::vector<LevelSpan>> FindCacheLevels(const std::vector<SweepPoint>& curve,
                                                       double drop = kCacheLevelDrop);

}  // namespace accounting

#endif  // ACCOUNTING_CACHE_LEVELS_H_
