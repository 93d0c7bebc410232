// CheckMatmulSamples (matmul_check.h).
#include "micro/matmul/matmul_check.h"

#include <cmath>
#include <set>

#include "absl/strings/str_format.h"
#include "measure/random_fill.h"

namespace micro {

double MatmulTolerance(accounting::Dtype dtype) {
  switch (dtype) {
    case accounting::Dtype::kFp32: return 1e-5;
    case accounting::Dtype::kTf32: return 4e-3;
    case accounting::Dtype::kBf16: return 1e-2;
    case accounting::Dtype::kFp16: return 4e-3;
    case accounting::Dtype::kFp8: return 6e-2;
  }
  return 0;
}

std::vector<std::pair<int64_t, int64_t>> MatmulSampleEntries(int64_t m, int64_t n, int count) {
  std::vector<std::pair<int64_t, int64_t>> out;
  std::set<std::pair<int64_t, int64_t>> seen;
  auto add = [&](int64_t i, int64_t j) {
    if (seen.insert({i, j}).second) out.push_back({i, j});
  };
  add(0, 0);
  add(m - 1, n - 1);
  const int64_t total = m * n;
  for (uint64_t s = 0; static_cast<int>(out.size()) < count && static_cast<int64_t>(out.size()) < total;
       ++s) {
    int64_t i = static_cast<int64_t>(HashIndex(77, 2 * s) % static_cast<uint64_t>(m));
    int64_t j = static_cast<int64_t>(HashIndex(77, 2 * s + 1) % static_cast<uint64_t>(n));
    add(i, j);
  }
  return out;
}

absl::Status CheckMatmulSamples(accounting::Dtype dtype, int64_t k,
                                const std::vector<std::pair<int64_t, int64_t>>& entries, const float* a_rows,
                                const float* b_cols, const float* c) {
  const double tol = MatmulTolerance(dtype);
  for (size_t s = 0; s < entries.size(); ++s) {
    const float* a = a_rows + s * k;
    const float* b = b_cols + s * k;
    double ref = 0, scale = 0;
    for (int64_t kk = 0; kk < k; ++kk) {
      ref += double{a[kk]} * double{b[kk]};
      scale += std::fabs(double{a[kk]} * double{b[kk]});
    }
    const double err = std::fabs(double{c[s]} - ref);
    if (!std::isfinite(c[s]) || err > tol * scale) {
      return absl::InternalError(
          absl::StrFormat("incorrect %s matmul: C[%d, %d] = %.7g, double reference %.7g, |error| %.3g > "
                          "tolerance %.0e x sum|a b| (%.4g) = %.3g",
                          std::string(accounting::DtypeName(dtype)), entries[s].first, entries[s].second,
                          c[s], ref, err, tol, scale, tol * scale));
    }
  }
  return absl::OkStatus();
}

}  // namespace micro
