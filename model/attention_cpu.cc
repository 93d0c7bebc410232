// Causal self-attention forward/backward on the CPU: OpenMP over (batch, head), a
// single-threaded GEMM per product inside (oneDNN and OpenBLAS both run on the calling thread
// inside a parallel region).
#include "model/attention_cpu.h"

#include <cmath>

#include "accounting/flop_counter.h"
#include "model/fast_math_cpu.h"
#include "model/gemm_cpu.h"

namespace model {
namespace {

// Head h of batch row b in the fused qkv activations (B, T, 3C) (or their gradient): the
// head's q, k and v columns start C apart, and a row of them is 3C long.
template <typename P>
struct QkvHead {
  QkvHead(P qkv, int64_t b, int64_t h, int64_t T, int64_t C, int64_t hs)
      : q(qkv + b * T * 3 * C + h * hs), k(q + C), v(q + 2 * C) {}
  P q, k, v;
};

}  // namespace

template <typename F>
void attention_forward(F* out, F* att, const F* inp, int64_t B, int64_t T, int64_t C, int64_t NH) {
  const int64_t hs = C / NH;
  const int64_t C3 = 3 * C;
  const F scale = F(1) / std::sqrt(F(hs));
  // Counted here, on the caller's thread (the counter is thread-local).
  accounting::CountMatmul(B * NH * T, hs, T, "attention_qk");
  accounting::CountMatmul(B * NH * T, T, hs, "attention_av");
#pragma omp parallel for schedule(static)
  for (int64_t bh = 0; bh < B * NH; ++bh) {
    const int64_t b = bh / NH, h = bh % NH;
    const QkvHead<const F*> in(inp, b, h, T, C, hs);
    F* a = att + bh * T * T;
    // scores (T, T) = scale * q (T, hs) @ k^T (hs, T)
    cpu_gemm(false, true, T, T, hs, scale, in.q, C3, in.k, C3, F(0), a, T);
    // Causal softmax per row, vectorised (ExpCpu: fp32 exp_fast, fp64 std::exp).
    for (int64_t t = 0; t < T; ++t) {
      F* row = a + t * T;
      F maxval = row[0];
#pragma omp simd reduction(max : maxval)
      for (int64_t j = 1; j <= t; ++j) maxval = row[j] > maxval ? row[j] : maxval;
      F sum = 0;
#pragma omp simd reduction(+ : sum)
      for (int64_t j = 0; j <= t; ++j) {
        row[j] = ExpCpu(row[j] - maxval);
        sum += row[j];
      }
      const F inv = F(1) / sum;
#pragma omp simd
      for (int64_t j = 0; j <= t; ++j) row[j] *= inv;
      for (int64_t j = t + 1; j < T; ++j) row[j] = 0;
    }
    // out (T, hs) = att (T, T) @ v (T, hs)
    cpu_gemm(false, false, T, hs, T, F(1), a, T, in.v, C3, F(0), out + b * T * C + h * hs, C);
  }
}

template <typename F>
void attention_backward(F* dinp, F* datt, const F* dout, const F* inp, const F* att, int64_t B, int64_t T,
                        int64_t C, int64_t NH) {
  const int64_t hs = C / NH;
  const int64_t C3 = 3 * C;
  const F scale = F(1) / std::sqrt(F(hs));
  accounting::CountMatmul(B * NH * T, hs, T, "attention_datt");
  for (const char* tag : {"attention_dv", "attention_dq", "attention_dk"}) {
    accounting::CountMatmul(B * NH * T, T, hs, tag);
  }
#pragma omp parallel for schedule(static)
  for (int64_t bh = 0; bh < B * NH; ++bh) {
    const int64_t b = bh / NH, h = bh % NH;
    const QkvHead<const F*> in(inp, b, h, T, C, hs);
    const QkvHead<F*> d(dinp, b, h, T, C, hs);
    const F* a = att + bh * T * T;
    const F* dy = dout + b * T * C + h * hs;
    F* da = datt + bh * T * T;
    // datt (T, T) = dout (T, hs) @ v^T (hs, T)
    cpu_gemm(false, true, T, T, hs, F(1), dy, C, in.v, C3, F(0), da, T);
    // dv (T, hs) = att^T (T, T) @ dout (T, hs)
    cpu_gemm(true, false, T, hs, T, F(1), a, T, dy, C, F(0), d.v, C3);
    // Softmax backward in place: dscores = att * (datt - sum_j att * datt), zero when masked.
    for (int64_t t = 0; t < T; ++t) {
      const F* arow = a + t * T;
      F* drow = da + t * T;
      F dot = 0;
#pragma omp simd reduction(+ : dot)
      for (int64_t j = 0; j <= t; ++j) dot += arow[j] * drow[j];
#pragma omp simd
      for (int64_t j = 0; j <= t; ++j) drow[j] = arow[j] * (drow[j] - dot);
      for (int64_t j = t + 1; j < T; ++j) drow[j] = 0;
    }
    // dq (T, hs) = scale * dscores (T, T) @ k (T, hs); dk = scale * dscores^T @ q
    cpu_gemm(false, false, T, hs, T, scale, da, T, in.k, C3, F(0), d.q, C3);
    cpu_gemm(true, false, T, hs, T, scale, da, T, in.q, C3, F(0), d.k, C3);
  }
}

template void attention_forward<float>(float*, float*, const float*, int64_t, int64_t, int64_t, int64_t);
template void attention_forward<double>(double*, double*, const double*, int64_t, int64_t, int64_t, int64_t);
template void attention_backward<float>(float*, float*, const float*, const float*, const float*, int64_t,
                                        int64_t, int64_t, int64_t);
template void attention_backward<double>(double*, double*, const double*, const double*, const double*,
                                         int64_t, int64_t, int64_t, int64_t);

}  // namespace model
