// Symmetric per-output-channel int8 quantisation (quantize_int8.h).
#include "model/quantize_int8.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace model {
namespace {

// max |w| over a row, or NaN/Inf when the row holds one (the maximum of |x| propagates neither
// reliably, so non-finite values are looked for apart).
float RowMaxAbs(const float* w, int64_t C, bool* finite) {
  float m = 0;
  bool ok = true;
  for (int64_t i = 0; i < C; ++i) {
    ok &= std::isfinite(w[i]);
    m = std::max(m, std::fabs(w[i]));
  }
  *finite = ok;
  return m;
}

absl::Status NonFiniteError(const float* w, int64_t row, int64_t C) {
  for (int64_t i = 0; i < C; ++i) {
    if (!std::isfinite(w[row * C + i])) {
      return absl::InvalidArgumentError(absl::StrCat("int8 quantisation: weight at row ", row, ", column ", i,
                                                     " is ", w[row * C + i], "; only finite weights quantise"));
    }
  }
  return absl::InternalError("non-finite row without a non-finite value");
}

}  // namespace

absl::Status QuantizeInt8(const float* w, int64_t OC, int64_t C, int8_t* q, float* scales) {
  if (OC < 1 || C < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("int8 quantisation: a (", OC, ", ", C, ") weight; both dimensions must be >= 1"));
  }
  int64_t first_bad = OC;  // the lowest row holding a NaN or an infinity
#pragma omp parallel for schedule(static) reduction(min : first_bad)
  for (int64_t o = 0; o < OC; ++o) {
    bool finite = true;
    const float m = RowMaxAbs(w + o * C, C, &finite);
    if (!finite) {
      first_bad = std::min(first_bad, o);
      continue;
    }
    const float s = m / static_cast<float>(kInt8Max);
    scales[o] = s;
    // Divided in double, so that q is w / s rounded once (the bound |w - q s| <= s / 2 holds up to
    // the rounding of the product q * s itself); an all-zero row has s = 0 and q = 0.
    const double sd = s;
    constexpr double kMax = kInt8Max;
    for (int64_t i = 0; i < C; ++i) {
      const double r = s > 0 ? std::nearbyint(static_cast<double>(w[o * C + i]) / sd) : 0.0;
      q[o * C + i] = static_cast<int8_t>(std::clamp(r, -kMax, kMax));
    }
  }
  if (first_bad < OC) return NonFiniteError(w, first_bad, C);
  return absl::OkStatus();
}

void DequantizeInt8(const int8_t* q, const float* scales, int64_t OC, int64_t C, float* out) {
#pragma omp parallel for schedule(static)
  for (int64_t o = 0; o < OC; ++o) {
    const float s = scales[o];
    for (int64_t i = 0; i < C; ++i) out[o * C + i] = static_cast<float>(q[o * C + i]) * s;
  }
}

absl::Status QuantizeInt8Matrix(const float* w, int64_t OC, int64_t C, Int8Matrix* out) {
  out->rows = std::max<int64_t>(OC, 0);
  out->cols = std::max<int64_t>(C, 0);
  out->q.assign(static_cast<size_t>(out->rows * out->cols), 0);
  out->scales.assign(static_cast<size_t>(out->rows), 0.0f);
  return QuantizeInt8(w, OC, C, out->q.data(), out->scales.data());
}

}  // namespace model
