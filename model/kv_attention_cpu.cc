// KV-cache attention on the CPU (kv_attention_cpu.h).
#include "model/kv_attention_cpu.h"

#include <cmath>
#include <cstring>

#include "accounting/flop_counter.h"
#include "model/softmax_cpu.h"

namespace model {

namespace {

// o[0..hs-1] = sum over j < n of w[j] * v[j * hs ..]: four cached rows a pass, so that o is
// loaded and stored once per four keys, not once per key. With the vectorised softmax, a gpt2 B=1
// step's attention on one thread went from 0.75 to 0.70 ms a token on the Intel Xeon (AMX) VM: the
// rest is reading the cache (cpu_decoder.cc SerialAttention).
template <typename F>
void WeightedRowSum(F* o, const F* w, const F* v, int64_t n, int64_t hs) {
  for (int64_t i = 0; i < hs; ++i) o[i] = 0;
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const F w0 = w[j], w1 = w[j + 1], w2 = w[j + 2], w3 = w[j + 3];
    const F *v0 = v + j * hs, *v1 = v0 + hs, *v2 = v1 + hs, *v3 = v2 + hs;
#pragma omp simd
    for (int64_t i = 0; i < hs; ++i) o[i] += (w0 * v0[i] + w1 * v1[i]) + (w2 * v2[i] + w3 * v3[i]);
  }
  for (; j < n; ++j) {
    const F wj = w[j];
    const F* vj = v + j * hs;
#pragma omp simd
    for (int64_t i = 0; i < hs; ++i) o[i] += wj * vj[i];
  }
}

}  // namespace

template <typename F>
void kv_cache_write(F* k_cache, F* v_cache, const F* qkv, int64_t B, int64_t T, int64_t C, int64_t NH,
                    int64_t maxT, int64_t pos, int64_t NKV) {
  if (NKV <= 0) NKV = NH;
  const int64_t hs = C / NH, KVW = NKV * hs, QKV = C + 2 * KVW;
#pragma omp parallel for collapse(2) schedule(static) if (B * NKV * T > 64)
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < NKV; ++h) {
      F* kc = k_cache + ((b * NKV + h) * maxT + pos) * hs;
      F* vc = v_cache + ((b * NKV + h) * maxT + pos) * hs;
      for (int64_t t = 0; t < T; ++t) {
        const F* row = qkv + (b * T + t) * QKV + h * hs;
        std::memcpy(kc + t * hs, row + C, sizeof(F) * hs);
        std::memcpy(vc + t * hs, row + C + KVW, sizeof(F) * hs);
      }
    }
  }
}

template <typename F>
void kv_attention_forward(F* out, F* scratch, const F* qkv, const F* k_cache, const F* v_cache, int64_t B,
                          int64_t T, int64_t C, int64_t NH, int64_t maxT, int64_t pos, int64_t NKV) {
  if (NKV <= 0) NKV = NH;
  const int64_t hs = C / NH, QKV = C + 2 * NKV * hs, keys_max = pos + T, group = NH / NKV;
  const F scale = F(1) / std::sqrt(F(hs));
  // Keys read over the T rows: sum of (pos + t + 1) for t < T.
  const int64_t keys = T * pos + T * (T + 1) / 2;
  accounting::CountFlops(B * NH * 2 * hs * keys, "attention_qk");
  accounting::CountFlops(B * NH * 2 * hs * keys, "attention_av");
#pragma omp parallel for schedule(static)
  for (int64_t bh = 0; bh < B * NH; ++bh) {
    const int64_t b = bh / NH, h = bh % NH;
    // This query head's K/V head: the cache's (b, h / group) block.
    const F* kc = k_cache + (b * NKV + h / group) * maxT * hs;
    const F* vc = v_cache + (b * NKV + h / group) * maxT * hs;
    F* p = scratch + bh * keys_max;
    for (int64_t t = 0; t < T; ++t) {
      const F* q = qkv + (b * T + t) * QKV + h * hs;
      const int64_t n = pos + t + 1;  // keys 0 .. pos + t
      for (int64_t j = 0; j < n; ++j) {
        const F* k = kc + j * hs;
        F dot = 0;
#pragma omp simd reduction(+ : dot)
        for (int64_t i = 0; i < hs; ++i) dot += q[i] * k[i];
        p[j] = dot * scale;
      }
      SoftmaxInPlace(p, n);
      WeightedRowSum(out + (b * T + t) * C + h * hs, p, vc, n, hs);
    }
  }
}

template void kv_cache_write<float>(float*, float*, const float*, int64_t, int64_t, int64_t, int64_t, int64_t,
                                    int64_t, int64_t);
template void kv_cache_write<double>(double*, double*, const double*, int64_t, int64_t, int64_t, int64_t,
                                     int64_t, int64_t, int64_t);
template void kv_attention_forward<float>(float*, float*, const float*, const float*, const float*, int64_t,
                                          int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);
template void kv_attention_forward<double>(double*, double*, const double*, const double*, const double*,
                                           int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);

}  // namespace model
