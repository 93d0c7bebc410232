// E-divisive means with a permutation test (edivisive.h).
#include "tools/history/edivisive.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"

namespace history {

uint64_t SplitMix64::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double SplitMix64::Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

double SplitMix64::Normal() {
  double u1 = Uniform();
  while (u1 <= 0) u1 = Uniform();
  const double u2 = Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

namespace {

struct Best {
  int tau = -1;  // split point (first index of Y), -1 when the segment is too short
  double q = 0;
};

// The best split of the points order[a..b) (indices into x), with d the pairwise distances.
Best BestSplit(const std::vector<double>& d, int n, const std::vector<int>& order, int a, int b, int min_size) {
  Best best;
  const int len = b - a;
  if (len < 2 * min_size) return best;
  auto D = [&](int i, int j) { return d[static_cast<size_t>(order[i]) * n + order[j]]; };
  // Start with X = [a, a + min_size).
  int tau = a + min_size;
  double within_x = 0, within_y = 0, between = 0;
  for (int i = a; i < tau; ++i) {
    for (int k = i + 1; k < tau; ++k) within_x += D(i, k);
    for (int j = tau; j < b; ++j) between += D(i, j);
  }
  for (int j = tau; j < b; ++j) {
    for (int k = j + 1; k < b; ++k) within_y += D(j, k);
  }
  for (;;) {
    const double m = tau - a, nn = b - tau;
    const double e = 2.0 * between / (m * nn) - within_x / (m * (m - 1) / 2) - within_y / (nn * (nn - 1) / 2);
    const double q = m * nn / (m + nn) * e;
    if (best.tau < 0 || q > best.q) best = {tau, q};
    if (tau + 1 > b - min_size) break;
    // Move point tau from Y to X.
    double to_x = 0, to_y = 0;
    for (int i = a; i < tau; ++i) to_x += D(i, tau);
    for (int j = tau + 1; j < b; ++j) to_y += D(tau, j);
    within_x += to_x;
    within_y -= to_y;
    between += to_y - to_x;
    ++tau;
  }
  return best;
}

}  // namespace

absl::StatusOr<std::vector<ChangePoint>> EDivisive(const std::vector<double>& x, const EDivisiveOptions& o) {
  if (o.min_size < 2) return absl::InvalidArgumentError(absl::StrCat("min_size = ", o.min_size, "; need >= 2"));
  if (o.permutations < 1 || o.permutations > kMaxPermutations) {
    return absl::InvalidArgumentError(
        absl::StrCat("permutations = ", o.permutations, "; allowed 1 to ", kMaxPermutations));
  }
  if (!(o.significance > 0 && o.significance < 1)) {
    return absl::InvalidArgumentError(absl::StrCat("significance = ", o.significance, "; need 0 < s < 1"));
  }
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) return absl::InvalidArgumentError(absl::StrCat("value ", i, " is not finite"));
  }
  const int n = static_cast<int>(x.size());
  std::vector<double> d(static_cast<size_t>(n) * n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) d[static_cast<size_t>(i) * n + j] = std::fabs(x[i] - x[j]);
  }
  std::vector<int> identity(n);
  std::iota(identity.begin(), identity.end(), 0);
  std::vector<int> bounds = {0, n};  // segment boundaries, sorted
  std::vector<ChangePoint> found;
  SplitMix64 rng(o.seed);
  for (;;) {
    // The candidate: the best split over the current segments.
    Best best;
    for (size_t s = 0; s + 1 < bounds.size(); ++s) {
      const Best b = BestSplit(d, n, identity, bounds[s], bounds[s + 1], o.min_size);
      if (b.tau >= 0 && (best.tau < 0 || b.q > best.q)) best = b;
    }
    if (best.tau < 0) break;
    // The permutation test: shuffle within each segment, take the largest best-split Q.
    int as_large = 0;
    std::vector<int> order = identity;
    for (int r = 0; r < o.permutations; ++r) {
      double max_q = 0;
      bool any = false;
      for (size_t s = 0; s + 1 < bounds.size(); ++s) {
        for (int i = bounds[s + 1] - 1; i > bounds[s]; --i) {
          const int j = bounds[s] + static_cast<int>(rng.Next() % static_cast<uint64_t>(i - bounds[s] + 1));
          std::swap(order[i], order[j]);
        }
        const Best b = BestSplit(d, n, order, bounds[s], bounds[s + 1], o.min_size);
        if (b.tau >= 0 && (!any || b.q > max_q)) max_q = b.q, any = true;
      }
      if (any && max_q >= best.q) ++as_large;
    }
    const double p = (1.0 + as_large) / (1.0 + o.permutations);
    if (p >= o.significance) break;
    found.push_back({best.tau, best.q, p});
    bounds.insert(std::upper_bound(bounds.begin(), bounds.end(), best.tau), best.tau);
  }
  std::sort(found.begin(), found.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  return found;
}

int MinPermutations(double significance) {
  if (!(significance > 0 && significance < 1)) return 1;
  if (significance * (kMaxPermutations + 1.0) <= 1) return kMaxPermutations + 1;  // beyond the allowed
  int n = std::max(1, static_cast<int>(std::floor(1 / significance)) - 1);
  while (1.0 / (n + 1) >= significance) ++n;
  return n;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<SegmentChange> DescribeChanges(const std::vector<double>& x, const std::vector<ChangePoint>& cps,
                                           bool higher_is_better) {
  std::vector<int> bounds = {0};
  for (const ChangePoint& c : cps) bounds.push_back(c.index);
  bounds.push_back(static_cast<int>(x.size()));
  std::vector<SegmentChange> out;
  for (size_t i = 0; i < cps.size(); ++i) {
    SegmentChange c;
    c.index = cps[i].index;
    c.before = Median({x.begin() + bounds[i], x.begin() + bounds[i + 1]});
    c.after = Median({x.begin() + bounds[i + 1], x.begin() + bounds[i + 2]});
    c.change = c.before != 0 ? c.after / c.before - 1 : 0;
    c.p_value = cps[i].p_value;
    c.worse = higher_is_better ? c.after < c.before : c.after > c.before;
    out.push_back(c);
  }
  return out;
}

}  // namespace history
