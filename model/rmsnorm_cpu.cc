// RMSNorm forward/backward on the CPU, OpenMP over rows (and over channel blocks for the weight
// gradient, so its sums run in a fixed order whatever the thread count), as layernorm_cpu.cc.
#include "model/rmsnorm_cpu.h"

#include <algorithm>
#include <cmath>

#include "model/rmsnorm_math.h"

namespace model {
namespace {

// One row: rstd of x, then out = x * rstd * weight. Both forward ops run exactly this code.
template <typename F>
inline void RmsNormRow(F* o, F* rstd, const F* x, const F* weight, int64_t C) {
  F ss = 0;
#pragma omp simd reduction(+ : ss)
  for (int64_t i = 0; i < C; ++i) ss += x[i] * x[i];
  const F s = F(1) / std::sqrt(ss / F(C) + F(kRmsNormEps));
#pragma omp simd
  for (int64_t i = 0; i < C; ++i) o[i] = x[i] * s * weight[i];
  *rstd = s;
}

}  // namespace

template <typename F>
void rmsnorm_forward(F* out, F* rstd, const F* inp, const F* weight, int64_t B, int64_t T, int64_t C) {
  const int64_t BT = B * T;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < BT; ++r) RmsNormRow(out + r * C, rstd + r, inp + r * C, weight, C);
}

template <typename F>
void residual_rmsnorm_forward(F* residual, F* out, F* rstd, const F* inp1, const F* inp2, const F* weight,
                              int64_t B, int64_t T, int64_t C) {
  const int64_t BT = B * T;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < BT; ++r) {
    F* x = residual + r * C;
    const F* a = inp1 + r * C;
    const F* b = inp2 + r * C;
#pragma omp simd
    for (int64_t i = 0; i < C; ++i) x[i] = a[i] + b[i];
    RmsNormRow(out + r * C, rstd + r, static_cast<const F*>(x), weight, C);
  }
}

template <typename F>
void rmsnorm_backward(F* dinp, F* dweight, const F* dout, const F* inp, const F* weight, const F* rstd, int64_t B,
                      int64_t T, int64_t C, GradWrite write) {
  const int64_t BT = B * T;
  // Input gradient, row by row: dx += rstd * (w dy - x * rstd^2 * mean(w dy x)).
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < BT; ++r) {
    const F* x = inp + r * C;
    const F* dy = dout + r * C;
    const F s = rstd[r];
    F dot = 0;
#pragma omp simd reduction(+ : dot)
    for (int64_t i = 0; i < C; ++i) dot += weight[i] * dy[i] * x[i];
    const F k = s * s * dot / F(C);
    F* dx = dinp + r * C;
#pragma omp simd
    for (int64_t i = 0; i < C; ++i) dx[i] += s * (weight[i] * dy[i] - x[i] * k);
  }
  // Weight gradient: each thread owns a block of channels and sums the rows in order.
  constexpr int64_t kBlock = 256;
  const int64_t blocks = (C + kBlock - 1) / kBlock;
  const bool overwrite = write == GradWrite::kOverwrite;
#pragma omp parallel for schedule(static)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t c0 = blk * kBlock, n = std::min(kBlock, C - c0);
    F dw[kBlock] = {};
    for (int64_t r = 0; r < BT; ++r) {
      const F* x = inp + r * C + c0;
      const F* dy = dout + r * C + c0;
      const F s = rstd[r];
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) dw[j] += x[j] * s * dy[j];
    }
    for (int64_t j = 0; j < n; ++j) dweight[c0 + j] = overwrite ? dw[j] : dweight[c0 + j] + dw[j];
  }
}

template void rmsnorm_forward<float>(float*, float*, const float*, const float*, int64_t, int64_t, int64_t);
template void rmsnorm_forward<double>(double*, double*, const double*, const double*, int64_t, int64_t, int64_t);
template void residual_rmsnorm_forward<float>(float*, float*, float*, const float*, const float*, const float*,
                                              int64_t, int64_t, int64_t);
template void residual_rmsnorm_forward<double>(double*, double*, double*, const double*, const double*,
                                               const double*, int64_t, int64_t, int64_t);
template void rmsnorm_backward<float>(float*, float*, const float*, const float*, const float*, const float*,
                                      int64_t, int64_t, int64_t, GradWrite);
template void rmsnorm_backward<double>(double*, double*, const double*, const double*, const double*,
                                       const double*, int64_t, int64_t, int64_t, GradWrite);

}  // namespace model
