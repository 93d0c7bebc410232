// RoPE on the CPU: OpenMP over rows, the pairs of a head in a vectorisable inner loop.
#include "model/rope_cpu.h"

#include "model/rope_math.h"

namespace model {
namespace {

// Rotates the first `heads` heads of every row of `x` (row length `row`) by sign * angle.
template <typename F>
void RotateHeads(F* x, const F* cos, const F* sin, int64_t B, int64_t T, int64_t row, int64_t heads, int64_t hd,
                 int sign) {
  const int64_t half = hd / 2;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < B * T; ++r) {
    const F* c = cos + (r % T) * half;
    const F* s = sin + (r % T) * half;
    F* xr = x + r * row;
    for (int64_t h = 0; h < heads; ++h) {
      F* xh = xr + h * hd;
#pragma omp simd
      for (int64_t i = 0; i < half; ++i) RopeRotate(&xh[2 * i], &xh[2 * i + 1], c[i], s[i], sign);
    }
  }
}

}  // namespace

template <typename F>
void rope_table(F* cos, F* sin, int64_t T, int64_t hd, double theta) {
  const int64_t half = hd / 2;
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t i = 0; i < half; ++i) {
      const double a = RopeAngle(t, i, hd, theta);
      cos[t * half + i] = static_cast<F>(std::cos(a));
      sin[t * half + i] = static_cast<F>(std::sin(a));
    }
  }
}

template <typename F>
void rope_forward(F* qkv, const F* cos, const F* sin, int64_t B, int64_t T, int64_t NH, int64_t NKV, int64_t hd) {
  // q's NH heads and k's NKV heads are adjacent at the start of each row: one pass over NH + NKV.
  RotateHeads(qkv, cos, sin, B, T, (NH + 2 * NKV) * hd, NH + NKV, hd, +1);
}

template <typename F>
void rope_backward(F* dqkv, const F* cos, const F* sin, int64_t B, int64_t T, int64_t NH, int64_t NKV,
                   int64_t hd) {
  RotateHeads(dqkv, cos, sin, B, T, (NH + 2 * NKV) * hd, NH + NKV, hd, -1);
}

template void rope_table<float>(float*, float*, int64_t, int64_t, double);
template void rope_table<double>(double*, double*, int64_t, int64_t, double);
template void rope_forward<float>(float*, const float*, const float*, int64_t, int64_t, int64_t, int64_t, int64_t);
template void rope_forward<double>(double*, const double*, const double*, int64_t, int64_t, int64_t, int64_t,
                                   int64_t);
template void rope_backward<float>(float*, const float*, const float*, int64_t, int64_t, int64_t, int64_t, int64_t);
template void rope_backward<double>(double*, const double*, const double*, int64_t, int64_t, int64_t, int64_t,
                                    int64_t);

}  // namespace model
