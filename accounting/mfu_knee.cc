// The knee of an MFU curve and its trend breaks (mfu_knee.h).
#include "accounting/mfu_knee.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace accounting {
namespace {

absl::Status CheckX(const std::vector<CurvePoint>& curve) {
  for (size_t i = 0; i < curve.size(); ++i) {
    if (!std::isfinite(curve[i].x) || !(curve[i].x > 0)) {
      return absl::InvalidArgumentError(absl::StrCat("curve point ", i, " has tokens per step ", curve[i].x,
                                                     "; a finite number > 0 is expected"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Knee> FindKnee(const std::vector<CurvePoint>& curve, double fraction) {
  if (curve.empty()) return absl::InvalidArgumentError("no knee of an empty curve: it has no point");
  if (!(fraction > 0 && fraction <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat("knee fraction ", fraction, " is outside (0, 1]"));
  }
  if (absl::Status s = CheckX(curve); !s.ok()) return s;
  Knee k;
  bool any = false;
  for (size_t i = 0; i < curve.size(); ++i) {
    const double y = curve[i].y;
    if (!std::isfinite(y) || (any && y <= k.best_y)) continue;
    k.best_y = y;
    k.best_index = i;
    any = true;
  }
  if (!any || !(k.best_y > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("no knee: none of the curve's ", curve.size(), " points has a finite MFU > 0"));
  }
  const double threshold = fraction * k.best_y;
  bool found = false;
  for (size_t i = 0; i < curve.size(); ++i) {
    const CurvePoint& p = curve[i];
    if (!std::isfinite(p.y) || p.y < threshold || (found && p.x >= k.x)) continue;
    k.index = i;
    k.x = p.x;
    k.y = p.y;
    found = true;
  }
  k.fraction_of_best = k.y / k.best_y;  // found: the best point itself reaches the threshold
  return k;
}

absl::StatusOr<std::vector<TrendBreak>> FindTrendBreaks(const std::vector<CurvePoint>& curve) {
  if (absl::Status s = CheckX(curve); !s.ok()) return s;
  std::vector<size_t> order;
  for (size_t i = 0; i < curve.size(); ++i) {
    if (!(curve[i].spread >= 0) && !std::isnan(curve[i].spread)) {
      return absl::InvalidArgumentError(
          absl::StrCat("curve point ", i, " has a negative repetition spread ", curve[i].spread));
    }
    if (std::isfinite(curve[i].y)) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return curve[a].x < curve[b].x; });
  for (size_t k = 1; k < order.size(); ++k) {
    if (curve[order[k]].x == curve[order[k - 1]].x) {
      return absl::InvalidArgumentError(absl::StrCat("curve points ", order[k - 1], " and ", order[k],
                                                     " are both at tokens per step ", curve[order[k]].x,
                                                     "; a curve has one MFU per x"));
    }
  }
  std::vector<TrendBreak> breaks;
  for (size_t k = 1; k + 1 < order.size(); ++k) {
    const CurvePoint &a = curve[order[k - 1]], &p = curve[order[k]], &b = curve[order[k + 1]];
    const double allowed = std::max({a.spread, p.spread, b.spread});
    // NaN fails the comparison, +inf is not finite: the noise is unknown, the point not judged.
    if (!(allowed > 0) || !std::isfinite(allowed) || std::isnan(a.spread + p.spread + b.spread)) continue;
    const double t = std::log(p.x / a.x) / std::log(b.x / a.x);
    const double expected = a.y + t * (b.y - a.y);
    const double deviation = p.y - expected;
    if (std::fabs(deviation) > allowed) breaks.push_back({order[k], expected, deviation, allowed});
  }
  return breaks;
}

}  // namespace accounting
