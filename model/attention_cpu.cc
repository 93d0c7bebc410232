// Causal self-attention forward/backward on the CPU. fp32 on oneDNN (the default, and auto's
// fallback for shapes it has no choice for): each product of every (batch, head) is one batched
// matmul primitive per layer (strided views into the qkv buffer), the softmax a separate
// vectorised pass over the rows. Otherwise (fp64, OpenBLAS, dnnl_sgemm): OpenMP over (batch,
// head), a single-threaded GEMM per product inside (each library runs on the calling thread
// inside a parallel region).
#include "model/attention_cpu.h"

#include <cmath>
#include <type_traits>

#include "accounting/flop_counter.h"
#include "model/fast_math_cpu.h"
#include "model/gemm_cpu.h"
#include "model/onednn_gemm.h"

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

// One product for every (batch b, head h) as one batched primitive: op(A) (M, K) @ op(B) (K, N)
// into C (M, N), each operand's (b, h) block at b * stride[0] + h * stride[1] elements.
struct Operand {
  const float* p;
  int64_t ld, stride_b, stride_h;
};
void BatchedGemm(int64_t B, int64_t NH, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                 Operand a, Operand b, float* c, int64_t ldc, int64_t c_stride_b, int64_t c_stride_h) {
  OneDnnGemmShape s{trans_a, trans_b, M, N, K, a.ld, b.ld, ldc, alpha, 0.0f, false};
  s.batch[0] = B, s.batch[1] = NH;
  s.a_stride[0] = a.stride_b, s.a_stride[1] = a.stride_h;
  s.b_stride[0] = b.stride_b, s.b_stride[1] = b.stride_h;
  s.c_stride[0] = c_stride_b, s.c_stride[1] = c_stride_h;
  OneDnnSgemm(s, a.p, b.p, nullptr, c);
}

// The batched form runs where the per-head product would run on oneDNN's matmul primitive.
template <typename F>
bool Batched(int64_t T, int64_t hs) {
  if constexpr (!std::is_same_v<F, float>) {
    return false;
  } else {
    return ResolveCpuGemmBackend(false, true, T, T, hs) == CpuGemmBackend::kOneDnn;
  }
}

// Causal softmax of one row of scores in place (entries past t zeroed).
template <typename F>
void SoftmaxRow(F* row, int64_t t, int64_t T) {
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

// Softmax backward of one row in place: datt becomes dscores = att * (datt - sum_j att * datt).
template <typename F>
void SoftmaxBackwardRow(F* drow, const F* arow, int64_t t, int64_t T) {
  F dot = 0;
#pragma omp simd reduction(+ : dot)
  for (int64_t j = 0; j <= t; ++j) dot += arow[j] * drow[j];
#pragma omp simd
  for (int64_t j = 0; j <= t; ++j) drow[j] = arow[j] * (drow[j] - dot);
  for (int64_t j = t + 1; j < T; ++j) drow[j] = 0;
}

}  // namespace

template <typename F>
void attention_forward(F* out, F* att, const F* inp, int64_t B, int64_t T, int64_t C, int64_t NH) {
  const int64_t hs = C / NH;
  const int64_t C3 = 3 * C;
  const F scale = F(1) / std::sqrt(F(hs));
  // Counted here, on the caller's thread (the counter is thread-local).
  accounting::CountMatmul(B * NH * T, hs, T, "attention_qk");
  accounting::CountMatmul(B * NH * T, T, hs, "attention_av");
  if constexpr (std::is_same_v<F, float>) {
    if (Batched<F>(T, hs)) {
      // scores (B, NH, T, T) = scale * q @ k^T; the softmax over every row; out = att @ v.
      const Operand q{inp, C3, T * C3, hs}, k{inp + C, C3, T * C3, hs}, v{inp + 2 * C, C3, T * C3, hs};
      BatchedGemm(B, NH, false, true, T, T, hs, scale, q, k, att, T, NH * T * T, T * T);
#pragma omp parallel for schedule(static)
      for (int64_t r = 0; r < B * NH * T; ++r) SoftmaxRow(att + r * T, r % T, T);
      BatchedGemm(B, NH, false, false, T, hs, T, 1.0f, Operand{att, T, NH * T * T, T * T}, v, out, C, T * C, hs);
      return;
    }
  }
#pragma omp parallel for schedule(static)
  for (int64_t bh = 0; bh < B * NH; ++bh) {
    const int64_t b = bh / NH, h = bh % NH;
    const QkvHead<const F*> in(inp, b, h, T, C, hs);
    F* a = att + bh * T * T;
    // scores (T, T) = scale * q (T, hs) @ k^T (hs, T)
    cpu_gemm(false, true, T, T, hs, scale, in.q, C3, in.k, C3, F(0), a, T);
    // Causal softmax per row, vectorised (ExpCpu: fp32 exp_fast, fp64 std::exp).
    for (int64_t t = 0; t < T; ++t) SoftmaxRow(a + t * T, t, T);
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
  if constexpr (std::is_same_v<F, float>) {
    if (Batched<F>(T, hs)) {
      const Operand q{inp, C3, T * C3, hs}, k{inp + C, C3, T * C3, hs}, v{inp + 2 * C, C3, T * C3, hs};
      const Operand dy{dout, C, T * C, hs}, a{att, T, NH * T * T, T * T}, da{datt, T, NH * T * T, T * T};
      // datt = dout @ v^T; dv = att^T @ dout; the softmax backward; dq = scale * dscores @ k;
      // dk = scale * dscores^T @ q.
      BatchedGemm(B, NH, false, true, T, T, hs, 1.0f, dy, v, datt, T, NH * T * T, T * T);
      BatchedGemm(B, NH, true, false, T, hs, T, 1.0f, a, dy, dinp + 2 * C, C3, T * C3, hs);
#pragma omp parallel for schedule(static)
      for (int64_t r = 0; r < B * NH * T; ++r) SoftmaxBackwardRow(datt + r * T, att + r * T, r % T, T);
      BatchedGemm(B, NH, false, false, T, hs, T, scale, da, k, dinp, C3, T * C3, hs);
      BatchedGemm(B, NH, true, false, T, hs, T, scale, da, q, dinp + C, C3, T * C3, hs);
      return;
    }
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
    for (int64_t t = 0; t < T; ++t) SoftmaxBackwardRow(da + t * T, a + t * T, t, T);
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
