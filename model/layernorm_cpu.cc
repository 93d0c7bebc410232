// LayerNorm forward/backward on the CPU, OpenMP over rows (and over channel blocks for the
// weight gradients, so sums run in a fixed order whatever the thread count).
#include "model/layernorm_cpu.h"

#include <algorithm>
#include <cmath>

#include "model/layernorm_math.h"

namespace model {

namespace {

// One row: the statistics of x, then out = (x - mean) * rstd * weight (+ bias). Both forward
// ops below run exactly this code, so the fused op's results are the unfused ones, bit for bit.
template <typename F>
inline void LayerNormRow(F* o, F* mean, F* rstd, const F* x, const F* weight, const F* bias, int64_t C) {
  const F eps = F(kLayerNormEps);
  F sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < C; ++i) sum += x[i];
  const F m = sum / F(C);
  F var = 0;
#pragma omp simd reduction(+ : var)
  for (int64_t i = 0; i < C; ++i) {
    const F d = x[i] - m;
    var += d * d;
  }
  const F s = F(1) / std::sqrt(var / F(C) + eps);
  if (bias != nullptr) {
#pragma omp simd
    for (int64_t i = 0; i < C; ++i) o[i] = (x[i] - m) * s * weight[i] + bias[i];
  } else {
#pragma omp simd
    for (int64_t i = 0; i < C; ++i) o[i] = (x[i] - m) * s * weight[i];
  }
  *mean = m;
  *rstd = s;
}

}  // namespace

template <typename F>
void layernorm_forward(F* out, F* mean, F* rstd, const F* inp, const F* weight, const F* bias, int64_t B,
                       int64_t T, int64_t C) {
  const int64_t BT = B * T;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < BT; ++r) {
    LayerNormRow(out + r * C, mean + r, rstd + r, inp + r * C, weight, bias, C);
  }
}

template <typename F>
void residual_layernorm_forward(F* residual, F* out, F* mean, F* rstd, const F* inp1, const F* inp2,
                                const F* weight, const F* bias, int64_t B, int64_t T, int64_t C) {
  const int64_t BT = B * T;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < BT; ++r) {
    F* x = residual + r * C;
    const F* a = inp1 + r * C;
    const F* b = inp2 + r * C;
#pragma omp simd
    for (int64_t i = 0; i < C; ++i) x[i] = a[i] + b[i];
    // The row just written is still in L1: the statistics and the output read it from there.
    LayerNormRow(out + r * C, mean + r, rstd + r, static_cast<const F*>(x), weight, bias, C);
  }
}

template <typename F>
void layernorm_backward(F* dinp, F* dweight, F* dbias, const F* dout, const F* inp, const F* weight,
                        const F* mean, const F* rstd, int64_t B, int64_t T, int64_t C, GradWrite write) {
  const int64_t BT = B * T;
  const bool overwrite = write == GradWrite::kOverwrite;
  // Input gradient, row by row:
  //   dinp += rstd * (w*dout - mean(w*dout) - norm * mean(w*dout*norm))
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < BT; ++r) {
    const F* x = inp + r * C;
    const F* dy = dout + r * C;
    const F m = mean[r], s = rstd[r];
    F dnorm_mean = 0, dnorm_norm_mean = 0;
#pragma omp simd reduction(+ : dnorm_mean, dnorm_norm_mean)
    for (int64_t i = 0; i < C; ++i) {
      const F norm = (x[i] - m) * s;
      const F dnorm = weight[i] * dy[i];
      dnorm_mean += dnorm;
      dnorm_norm_mean += dnorm * norm;
    }
    dnorm_mean /= F(C);
    dnorm_norm_mean /= F(C);
    F* dx = dinp + r * C;
#pragma omp simd
    for (int64_t i = 0; i < C; ++i) {
      const F norm = (x[i] - m) * s;
      const F dnorm = weight[i] * dy[i];
      dx[i] += (dnorm - dnorm_mean - norm * dnorm_norm_mean) * s;
    }
  }
  // Weight and bias gradients: each thread owns a block of channels and sums rows in order.
  constexpr int64_t kBlock = 256;
  const int64_t blocks = (C + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t c0 = blk * kBlock, n = std::min(kBlock, C - c0);
    F dw[kBlock] = {}, db[kBlock] = {};
    for (int64_t r = 0; r < BT; ++r) {
      const F* x = inp + r * C + c0;
      const F* dy = dout + r * C + c0;
      const F m = mean[r], s = rstd[r];
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) {
        dw[j] += (x[j] - m) * s * dy[j];
        db[j] += dy[j];
      }
    }
    for (int64_t j = 0; j < n; ++j) dweight[c0 + j] = overwrite ? dw[j] : dweight[c0 + j] + dw[j];
    if (dbias != nullptr) {
      for (int64_t j = 0; j < n; ++j) dbias[c0 + j] = overwrite ? db[j] : dbias[c0 + j] + db[j];
    }
  }
}

template void layernorm_forward<float>(float*, float*, float*, const float*, const float*, const float*,
                                       int64_t, int64_t, int64_t);
template void layernorm_forward<double>(double*, double*, double*, const double*, const double*,
                                        const double*, int64_t, int64_t, int64_t);
template void residual_layernorm_forward<float>(float*, float*, float*, float*, const float*, const float*,
                                                const float*, const float*, int64_t, int64_t, int64_t);
template void residual_layernorm_forward<double>(double*, double*, double*, double*, const double*,
                                                 const double*, const double*, const double*, int64_t, int64_t,
                                                 int64_t);
template void layernorm_backward<float>(float*, float*, float*, const float*, const float*, const float*,
                                        const float*, const float*, int64_t, int64_t, int64_t, GradWrite);
template void layernorm_backward<double>(double*, double*, double*, const double*, const double*,
                                         const double*, const double*, const double*, int64_t, int64_t,
                                         int64_t, GradWrite);

}  // namespace model
