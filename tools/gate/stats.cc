// Mann-Whitney U (exact and normal approximation) and the median; see stats.h.
#include "tools/gate/stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "absl/strings/str_cat.h"

namespace stats {
namespace {

absl::Status CheckSample(const std::vector<double>& v, const char* which) {
  if (v.empty()) return absl::InvalidArgumentError(absl::StrCat("sample ", which, " is empty"));
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("sample ", which, "[", i, "] = ", v[i], " is not a finite number"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

double NormalSf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

std::vector<double> ExactUCounts(int n1, int n2) {
  // f(m, n)[u]: splits of m + n distinct values into m x's and n y's with U1 = u.
  // The largest value is either an x (it beats all n y's) or a y:
  //   f(m, n)[u] = f(m - 1, n)[u - n] + f(m, n - 1)[u];  f(0, n) = f(m, 0) = {1}.
  std::vector<std::vector<double>> prev(n2 + 1, std::vector<double>{1.0});  // m = 0
  for (int m = 1; m <= n1; ++m) {
    std::vector<std::vector<double>> cur(n2 + 1);
    cur[0] = {1.0};
    for (int n = 1; n <= n2; ++n) {
      std::vector<double>& c = cur[n];
      c.assign(static_cast<size_t>(m) * n + 1, 0.0);
      const std::vector<double>& a = prev[n];     // f(m - 1, n), size (m - 1) n + 1
      const std::vector<double>& b = cur[n - 1];  // f(m, n - 1), size m (n - 1) + 1
      for (size_t u = 0; u < b.size(); ++u) c[u] += b[u];
      for (size_t u = 0; u < a.size(); ++u) c[u + n] += a[u];
    }
    prev.swap(cur);
  }
  return prev[n2];
}

absl::StatusOr<double> Quantile(std::vector<double> v, double q) {
  if (v.empty()) return absl::InvalidArgumentError("quantile of an empty sample");
  if (!(q >= 0 && q <= 1))
    return absl::InvalidArgumentError(absl::StrCat("quantile q = ", q, " is outside [0, 1]"));
  std::sort(v.begin(), v.end());
  double pos = q * (v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - lo) * (v[hi] - v[lo]);
}

std::vector<double> HolmAdjust(const std::vector<double>& p) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> adj(m);
  double running = 0;
  for (size_t i = 0; i < m; ++i) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - i) * p[order[i]]));
    adj[order[i]] = running;
  }
  return adj;
}

absl::StatusOr<double> Median(std::vector<double> v) {
  if (v.empty()) return absl::InvalidArgumentError("median of an empty sample");
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

absl::StatusOr<MannWhitneyResult> MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y,
                                               Alternative alternative, Method method) {
  if (absl::Status s = CheckSample(x, "x"); !s.ok()) return s;
  if (absl::Status s = CheckSample(y, "y"); !s.ok()) return s;
  const size_t n1 = x.size(), n2 = y.size(), n = n1 + n2;

  // Mid-ranks of the pooled sample (1-based), and the tie term sum(t^3 - t).
  std::vector<std::pair<double, int>> pooled;  // (value, 0 for x / 1 for y)
  pooled.reserve(n);
  for (double v : x) pooled.emplace_back(v, 0);
  for (double v : y) pooled.emplace_back(v, 1);
  std::sort(pooled.begin(), pooled.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double r1 = 0, tie_term = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && pooled[j].first == pooled[i].first) ++j;
    double t = static_cast<double>(j - i);
    double mid_rank = 0.5 * (static_cast<double>(i + 1) + static_cast<double>(j));
    for (size_t k = i; k < j; ++k) {
      if (pooled[k].second == 0) r1 += mid_rank;
    }
    tie_term += t * t * t - t;
    i = j;
  }

  MannWhitneyResult r;
  r.u1 = r1 - static_cast<double>(n1) * (n1 + 1) / 2.0;
  r.ties = tie_term > 0;
  const double mean = static_cast<double>(n1) * n2 / 2.0;

  const bool exact_allowed =
      !r.ties && n1 <= static_cast<size_t>(kExactMaxN) && n2 <= static_cast<size_t>(kExactMaxN);
  if (method == Method::kExact && !exact_allowed) {
    return absl::InvalidArgumentError(absl::StrCat("exact Mann-Whitney U needs untied samples of at most ",
                                                   kExactMaxN, " values; got n1 = ", n1, ", n2 = ", n2,
                                                   r.ties ? ", with ties" : ""));
  }
  if (exact_allowed && method != Method::kNormal) {
    r.exact = true;
    std::vector<double> counts = ExactUCounts(static_cast<int>(n1), static_cast<int>(n2));
    double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    // Without ties U1 is an integer.
    size_t u = static_cast<size_t>(std::llround(r.u1));
    double upper = 0, lower = 0;  // P(U >= u1), P(U <= u1)
    for (size_t k = 0; k < counts.size(); ++k) {
      if (k >= u) upper += counts[k];
      if (k <= u) lower += counts[k];
    }
    upper /= total;
    lower /= total;
    switch (alternative) {
      case Alternative::kGreater: r.p_value = upper; break;
      case Alternative::kLess: r.p_value = lower; break;
      case Alternative::kTwoSided: r.p_value = std::min(1.0, 2.0 * std::min(upper, lower)); break;
    }
    return r;
  }

  const double var =
      static_cast<double>(n1) * n2 / 12.0 * ((n + 1.0) - tie_term / (static_cast<double>(n) * (n - 1.0)));
  if (var <= 0) {  // every value tied: no evidence either way
    r.p_value = 1.0;
    return r;
  }
  const double sd = std::sqrt(var);
  switch (alternative) {
    case Alternative::kGreater: r.p_value = NormalSf((r.u1 - mean - 0.5) / sd); break;
    case Alternative::kLess: r.p_value = NormalSf((mean - r.u1 - 0.5) / sd); break;
    case Alternative::kTwoSided: {
      double u = std::max(r.u1, static_cast<double>(n1) * n2 - r.u1);
      r.p_value = std::min(1.0, 2.0 * NormalSf((u - mean - 0.5) / sd));
      break;
    }
  }
  return r;
}

std::vector<double> ExactSignedRankCounts(int n) {
  // Add rank k either with a minus sign (sum unchanged) or a plus sign (sum + k).
  std::vector<double> counts(static_cast<size_t>(n) * (n + 1) / 2 + 1, 0.0);
  counts[0] = 1;
  int top = 0;
  for (int k = 1; k <= n; ++k) {
    top += k;
    for (int w = top; w >= k; --w) counts[w] += counts[w - k];
  }
  return counts;
}

absl::StatusOr<SignedRankResult> WilcoxonSignedRank(const std::vector<double>& d, Alternative alternative) {
  if (d.empty()) return absl::InvalidArgumentError("signed-rank test: empty sample");
  std::vector<double> nz;
  for (double x : d) {
    if (!std::isfinite(x)) return absl::InvalidArgumentError("signed-rank test: non-finite difference");
    if (x != 0) nz.push_back(x);
  }
  SignedRankResult r;
  r.n = static_cast<int>(nz.size());
  if (nz.empty()) return r;  // every pair equal: nothing to test, p = 1
  const size_t n = nz.size();
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return std::fabs(nz[a]) < std::fabs(nz[b]); });
  std::vector<double> rank(n);
  double tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && std::fabs(nz[idx[j + 1]]) == std::fabs(nz[idx[i]])) ++j;
    const double mid = (i + j) / 2.0 + 1.0;
    for (size_t k = i; k <= j; ++k) rank[idx[k]] = mid;
    const double t = static_cast<double>(j - i + 1);
    if (t > 1) ties = true;
    tie_term += t * t * t - t;
    i = j + 1;
  }
  for (size_t i = 0; i < n; ++i) {
    if (nz[i] > 0) r.w_plus += rank[i];
  }
  if (!ties && static_cast<int>(n) <= kExactMaxN) {
    r.exact = true;
    std::vector<double> counts = ExactSignedRankCounts(static_cast<int>(n));
    const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    const size_t w = static_cast<size_t>(std::llround(r.w_plus));
    double ge = 0, le = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      if (k >= w) ge += counts[k];
      if (k <= w) le += counts[k];
    }
    switch (alternative) {
      case Alternative::kGreater: r.p_value = ge / total; break;
      case Alternative::kLess: r.p_value = le / total; break;
      case Alternative::kTwoSided: r.p_value = std::min(1.0, 2.0 * std::min(ge, le) / total); break;
    }
    return r;
  }
  const double nn = static_cast<double>(n);
  const double mean = nn * (nn + 1) / 4;
  const double var = nn * (nn + 1) * (2 * nn + 1) / 24 - tie_term / 48;
  if (var <= 0) return r;
  const double sd = std::sqrt(var);
  switch (alternative) {
    case Alternative::kGreater: r.p_value = NormalSf((r.w_plus - mean - 0.5) / sd); break;
    case Alternative::kLess: r.p_value = NormalSf((mean - r.w_plus - 0.5) / sd); break;
    case Alternative::kTwoSided: {
      const double w = std::max(r.w_plus, nn * (nn + 1) / 2 - r.w_plus);
      r.p_value = std::min(1.0, 2.0 * NormalSf((w - mean - 0.5) / sd));
      break;
    }
  }
  return r;
}

}  // namespace stats
