// The plateaus of a bandwidth-against-working-set curve (cache_levels.h).
#include "accounting/cache_levels.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace accounting {
namespace {

absl::Status CheckCurve(const std::vector<SweepPoint>& curve, double drop) {
  if (!(drop > 0 && drop < 1)) {
    return absl::InvalidArgumentError(absl::StrCat("cache level drop ", drop, " is outside (0, 1)"));
  }
  if (curve.size() < 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("a cache sweep curve of ", curve.size(), " points; at least 3 are needed"));
  }
  for (size_t i = 0; i < curve.size(); ++i) {
    const SweepPoint& p = curve[i];
    if (!std::isfinite(p.working_set_bytes) || !(p.working_set_bytes > 0)) {
      return absl::InvalidArgumentError(absl::StrCat("sweep point ", i, " has working set ",
                                                     p.working_set_bytes,
                                                     " bytes; a finite number > 0 is expected"));
    }
    if (!std::isfinite(p.bytes_per_s) || !(p.bytes_per_s > 0)) {
      return absl::InvalidArgumentError(absl::StrCat("sweep point ", i, " has bandwidth ", p.bytes_per_s,
                                                     " bytes/s; a finite number > 0 is expected"));
    }
    if (i > 0 && !(p.working_set_bytes > curve[i - 1].working_set_bytes)) {
      return absl::InvalidArgumentError(
          absl::StrCat("sweep point ", i, " has working set ", p.working_set_bytes,
                       " bytes, not above point ", i - 1, "'s ", curve[i - 1].working_set_bytes,
                       "; the curve must be sorted by strictly increasing working set"));
    }
  }
  return absl::OkStatus();
}

// The plateau that starts at `first`, extended while no fall persists (span's first and last).
// Returns the index of the first point of the fall, or curve.size() when the curve ends inside
// the plateau.
size_t ExtendPlateau(const std::vector<SweepPoint>& curve, size_t first, double drop, LevelSpan* span) {
  const size_t n = curve.size();
  span->first = span->last = first;
  double reference = curve[first].bytes_per_s;  // the best rate sustained over two points
  bool paired = false;                          // whether `reference` comes from a pair yet
  auto below = [&](size_t k) { return curve[k].bytes_per_s < (1 - drop) * reference; };
  for (size_t k = first + 1; k < n; ++k) {
    if (below(k)) {
      if (k + 1 < n && below(k + 1)) return k;  // a fall confirmed by the next point
      continue;                                 // a lone low point: inside, not counted
    }
    if (span->last == k - 1) {  // two consecutive points in the plateau (not across a low one)
      const double pair = std::min(curve[k - 1].bytes_per_s, curve[k].bytes_per_s);
      reference = paired ? std::max(reference, pair) : pair;
      paired = true;
    }
    span->last = k;
  }
  return n;
}

// The median of the (up to) kLookAhead points after j; 0 when j is the last point.
constexpr size_t kLookAhead = 3;

double MedianAfter(const std::vector<SweepPoint>& curve, size_t j) {
  std::vector<double> next;
  for (size_t k = j + 1; k < curve.size() && k <= j + kLookAhead; ++k) next.push_back(curve[k].bytes_per_s);
  if (next.empty()) return 0;
  std::sort(next.begin(), next.end());
  const size_t m = next.size();
  return m % 2 == 1 ? next[m / 2] : (next[m / 2 - 1] + next[m / 2]) / 2;
}

// The first point at or after `fall` that the curve no longer falls steeply from: the median of
// the next points is not lower by more than drop / 2 (the last point at the latest).
size_t SkipTransition(const std::vector<SweepPoint>& curve, size_t fall, double drop) {
  size_t j = fall;
  while (j + 1 < curve.size() && MedianAfter(curve, j) < (1 - drop / 2) * curve[j].bytes_per_s) ++j;
  return j;
}

}  // namespace

double SustainedBest(const std::vector<double>& rates, size_t first, size_t last) {
  if (first > last || last >= rates.size()) return 0;
  if (first == last) return rates[first];
  double best = 0;
  for (size_t k = first + 1; k <= last; ++k) best = std::max(best, std::min(rates[k - 1], rates[k]));
  return best;
}

absl::StatusOr<std::vector<LevelSpan>> FindCacheLevels(const std::vector<SweepPoint>& curve, double drop) {
  if (absl::Status s = CheckCurve(curve, drop); !s.ok()) return s;
  std::vector<double> rates;
  for (const SweepPoint& p : curve) rates.push_back(p.bytes_per_s);
  std::vector<LevelSpan> spans;
  size_t first = 0;
  while (true) {
    LevelSpan span;
    const size_t fall = ExtendPlateau(curve, first, drop, &span);
    span.capacity_bytes = curve[span.last].working_set_bytes;
    span.bytes_per_s = SustainedBest(rates, span.first, span.last);
    spans.push_back(span);
    if (fall >= curve.size()) break;
    first = SkipTransition(curve, fall, drop);
  }
  return spans;
}

}  // namespace accounting
