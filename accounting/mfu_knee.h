// The knee of an MFU curve and the points that break its trend (issue 46, the scaling map).
//
// A curve is MFU (y, a fraction) against tokens per step (x = B x T), one per preset, dtype,
// recompute level and machine; each point carries its repetitions' spread (max - min MFU).
//
// - The knee: the smallest x whose y reaches kKneeFraction (90%) of the curve's best y. Its y is
//   >= 0.9 x the best by construction. Points whose y is not finite (NaN: no MFU) are left out;
//   of several points at the knee's x, the first in the caller's order is returned. Errors: no
//   point, an x that is not finite or not > 0, or no point with a finite y > 0 (no best to
//   reach 90% of).
// - A trend break: a point whose y differs from the straight line between its two neighbours in
//   x, interpolated in log x (the sweep doubles B and T), by more than the largest spread among it
//   and those neighbours. The first and last points are never judged (one neighbour). Where that
//   largest spread is 0 (one repetition each) or not finite, the noise is unknown and the point is
//   not flagged: with one repetition nothing is flagged. A curve breaks its trend on both sides
//   of an outlier, so the outlier's neighbours may be flagged too; the largest |deviation| is
//   the likely culprit. Points with a non-finite y are left out (the neighbours are the nearest
//   finite ones). Errors: an x that is not finite or not > 0, two points at one x (a curve has one
//   y per x), a negative spread.
//
//   std::vector<accounting::CurvePoint> c = {{256, 0.41, 0.01}, {512, 0.52, 0.02}, ...};
//   absl::StatusOr<accounting::Knee> k = accounting::FindKnee(c);        // k->x: tokens per step
//   absl::StatusOr<std::vector<accounting::TrendBreak>> b = accounting::FindTrendBreaks(c);
#ifndef ACCOUNTING_MFU_KNEE_H_
#define ACCOUNTING_MFU_KNEE_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"

namespace accounting {

inline constexpr double kKneeFraction = 0.9;

struct CurvePoint {
  double x = 0;       // tokens per step (B x T), > 0
  double y = 0;       // MFU, a fraction; NaN when unknown
  double spread = 0;  // the repetitions' max - min of y; 0 when unknown (one repetition)
};

struct Knee {
  size_t index = 0;             // into the caller's vector
  double x = 0, y = 0;          // the knee point
  double best_y = 0;            // the curve's largest finite y
  size_t best_index = 0;        // the first point with best_y
  double fraction_of_best = 0;  // y / best_y, >= `fraction`
};

// The smallest x whose y >= fraction x best y (fraction in (0, 1]; kKneeFraction by default).
absl::StatusOr<Knee> FindKnee(const std::vector<CurvePoint>& curve, double fraction = kKneeFraction);

struct TrendBreak {
  size_t index = 0;       // into the caller's vector
  double expected_y = 0;  // on the line between the neighbours, in log x
  double deviation = 0;   // y - expected_y
  double allowed = 0;     // the largest spread among the point and its neighbours (> 0)
};

// The points that break the curve's trend, in increasing x.
absl::StatusOr<std::vector<TrendBreak>> FindTrendBreaks(const std::vector<CurvePoint>& curve);

}  // namespace accounting

#endif  // ACCOUNTING_MFU_KNEE_H_
