// Causal self-attention forward/backward on the CPU, any number of K/V heads (grouped-query
// attention: query head h reads K/V head h / (NH / NKV)). fp32 on oneDNN (the default, and auto's
// fallback for shapes it has no choice for): each product of every (batch, head) is one batched
// matmul primitive per layer (strided views into the qkv buffer), the softmax a separate
// vectorised pass over the rows. Otherwise (fp64, OpenBLAS, dnnl_sgemm): OpenMP over (batch,
// head), a single-threaded GEMM per product inside (each library runs on the calling thread
// inside a parallel region).
#include "model/attention_cpu.h"

#include <cmath>
#include <type_traits>

#include "accounting/flop_counter.h"
#include "model/softmax_cpu.h"
#include "model/gemm_cpu.h"
#include "model/onednn_gemm.h"

namespace model {
namespace {

// Query head h of batch row b in the fused qkv activations (B, T, QKV), QKV = C + 2 * KVW (or
// their gradient): q's head at h * hs, the K and V of its group (kv = h / group) at C + kv * hs and
// C + KVW + kv * hs; a row is QKV long.
template <typename P>
struct QkvHead {
  QkvHead(P qkv, int64_t b, int64_t h, int64_t T, int64_t C, int64_t hs, int64_t group, int64_t KVW)
      : q(qkv + b * T * (C + 2 * KVW) + h * hs), k(qkv + b * T * (C + 2 * KVW) + C + (h / group) * hs), v(k + KVW) {}
  P q, k, v;
};

// One product for every (batch b, K/V head kv) as one batched primitive: op(A) (M, K) @ op(B) (K, N)
// into C (M, N) (C = alpha * op(A) op(B) + beta * C), each operand's (b, kv) block at b * stride[0]
// + kv * stride[1] elements.
struct Operand {
  const float* p;
  int64_t ld, stride_b, stride_h;
};
void BatchedGemm(int64_t B, int64_t NH, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
                 Operand a, Operand b, float* c, int64_t ldc, int64_t c_stride_b, int64_t c_stride_h,
                 float beta = 0.0f) {
  OneDnnGemmShape s{trans_a, trans_b, M, N, K, a.ld, b.ld, ldc, alpha, beta, false};
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
  SoftmaxInPlace(row, t + 1);
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
void attention_forward(F* out, F* att, const F* inp, int64_t B, int64_t T, int64_t C, int64_t NH, int64_t NKV) {
  if (NKV <= 0) NKV = NH;
  const int64_t hs = C / NH, group = NH / NKV, KVW = NKV * hs, QKV = C + 2 * KVW;
  const F scale = F(1) / std::sqrt(F(hs));
  // Counted here, on the caller's thread (the counter is thread-local); per query head.
  accounting::CountMatmul(B * NH * T, hs, T, "attention_qk");
  accounting::CountMatmul(B * NH * T, T, hs, "attention_av");
  if constexpr (std::is_same_v<F, float>) {
    if (Batched<F>(T, hs)) {
      // Per member g of the K/V groups, over every (batch, K/V head): scores (B, NH, T, T) =
      // scale * q @ k^T; then the softmax over every row; then out = att @ v.
      const Operand k{inp + C, QKV, T * QKV, hs}, v{inp + C + KVW, QKV, T * QKV, hs};
      for (int64_t g = 0; g < group; ++g) {
        const Operand q{inp + g * hs, QKV, T * QKV, group * hs};
        BatchedGemm(B, NKV, false, true, T, T, hs, scale, q, k, att + g * T * T, T, NH * T * T, group * T * T);
      }
#pragma omp parallel for schedule(static)
      for (int64_t r = 0; r < B * NH * T; ++r) SoftmaxRow(att + r * T, r % T, T);
      for (int64_t g = 0; g < group; ++g) {
        BatchedGemm(B, NKV, false, false, T, hs, T, 1.0f, Operand{att + g * T * T, T, NH * T * T, group * T * T}, v,
                    out + g * hs, C, T * C, group * hs);
      }
      return;
    }
  }
#pragma omp parallel for schedule(static)
  for (int64_t bh = 0; bh < B * NH; ++bh) {
    const int64_t b = bh / NH, h = bh % NH;
    const QkvHead<const F*> in(inp, b, h, T, C, hs, group, KVW);
    F* a = att + bh * T * T;
    // scores (T, T) = scale * q (T, hs) @ k^T (hs, T)
    cpu_gemm(false, true, T, T, hs, scale, in.q, QKV, in.k, QKV, F(0), a, T);
    // Causal softmax per row, vectorised (ExpCpu: fp32 exp_fast, fp64 std::exp).
    for (int64_t t = 0; t < T; ++t) SoftmaxRow(a + t * T, t, T);
    // out (T, hs) = att (T, T) @ v (T, hs)
    cpu_gemm(false, false, T, hs, T, F(1), a, T, in.v, QKV, F(0), out + b * T * C + h * hs, C);
  }
}

template <typename F>
void attention_backward(F* dinp, F* datt, const F* dout, const F* inp, const F* att, int64_t B, int64_t T,
                        int64_t C, int64_t NH, int64_t NKV) {
  if (NKV <= 0) NKV = NH;
  const int64_t hs = C / NH, group = NH / NKV, KVW = NKV * hs, QKV = C + 2 * KVW;
  const F scale = F(1) / std::sqrt(F(hs));
  accounting::CountMatmul(B * NH * T, hs, T, "attention_datt");
  for (const char* tag : {"attention_dv", "attention_dq", "attention_dk"}) {
    accounting::CountMatmul(B * NH * T, T, hs, tag);
  }
  if constexpr (std::is_same_v<F, float>) {
    if (Batched<F>(T, hs)) {
      // Per member g of the groups: datt = dout @ v^T; dv += att^T @ dout (the group's heads sum
      // into their K/V head's gradient: written by g = 0, added to after); then the softmax
      // backward; dq = scale * dscores @ k; dk += scale * dscores^T @ q.
      const Operand k{inp + C, QKV, T * QKV, hs}, v{inp + C + KVW, QKV, T * QKV, hs};
      for (int64_t g = 0; g < group; ++g) {
        const Operand dy{dout + g * hs, C, T * C, group * hs};
        const Operand a{att + g * T * T, T, NH * T * T, group * T * T};
        BatchedGemm(B, NKV, false, true, T, T, hs, 1.0f, dy, v, datt + g * T * T, T, NH * T * T, group * T * T);
        BatchedGemm(B, NKV, true, false, T, hs, T, 1.0f, a, dy, dinp + C + KVW, QKV, T * QKV, hs, g == 0 ? 0.0f : 1.0f);
      }
#pragma omp parallel for schedule(static)
      for (int64_t r = 0; r < B * NH * T; ++r) SoftmaxBackwardRow(datt + r * T, att + r * T, r % T, T);
      for (int64_t g = 0; g < group; ++g) {
        const Operand q{inp + g * hs, QKV, T * QKV, group * hs};
        const Operand da{datt + g * T * T, T, NH * T * T, group * T * T};
        BatchedGemm(B, NKV, false, false, T, hs, T, scale, da, k, dinp + g * hs, QKV, T * QKV, group * hs);
        BatchedGemm(B, NKV, true, false, T, hs, T, scale, da, q, dinp + C, QKV, T * QKV, hs, g == 0 ? 0.0f : 1.0f);
      }
      return;
    }
  }
  // Over (batch, K/V head): the group's query heads in order, so dk and dv sum in a fixed order.
#pragma omp parallel for schedule(static)
  for (int64_t bk = 0; bk < B * NKV; ++bk) {
    const int64_t b = bk / NKV, kv = bk % NKV;
    for (int64_t g = 0; g < group; ++g) {
      const int64_t h = kv * group + g;
      const QkvHead<const F*> in(inp, b, h, T, C, hs, group, KVW);
      const QkvHead<F*> d(dinp, b, h, T, C, hs, group, KVW);
      const F* a = att + (b * NH + h) * T * T;
      const F* dy = dout + b * T * C + h * hs;
      F* da = datt + (b * NH + h) * T * T;
      const F beta = g == 0 ? F(0) : F(1);
      // datt (T, T) = dout (T, hs) @ v^T (hs, T)
      cpu_gemm(false, true, T, T, hs, F(1), dy, C, in.v, QKV, F(0), da, T);
      // dv (T, hs) (+)= att^T (T, T) @ dout (T, hs)
      cpu_gemm(true, false, T, hs, T, F(1), a, T, dy, C, beta, d.v, QKV);
      // Softmax backward in place: dscores = att * (datt - sum_j att * datt), zero when masked.
      for (int64_t t = 0; t < T; ++t) SoftmaxBackwardRow(da + t * T, a + t * T, t, T);
      // dq (T, hs) = scale * dscores (T, T) @ k (T, hs); dk (+)= scale * dscores^T @ q
      cpu_gemm(false, false, T, hs, T, scale, da, T, in.k, QKV, F(0), d.q, QKV);
      cpu_gemm(true, false, T, hs, T, scale, da, T, in.q, QKV, beta, d.k, QKV);
    }
  }
}

template void attention_forward<float>(float*, float*, const float*, int64_t, int64_t, int64_t, int64_t,
                                       int64_t);
template void attention_forward<double>(double*, double*, const double*, int64_t, int64_t, int64_t, int64_t,
                                        int64_t);
template void attention_backward<float>(float*, float*, const float*, const float*, const float*, int64_t,
                                        int64_t, int64_t, int64_t, int64_t);
template void attention_backward<double>(double*, double*, const double*, const double*, const double*,
                                         int64_t, int64_t, int64_t, int64_t, int64_t);

}  // namespace model
