// AdamW update on the CPU.
#include "model/adamw_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "model/adamw_math.h"
#include "model/bf16.h"

// AdamW is memory-bound: 256-bit vectors move its bytes a little faster than 512-bit ones, which
// the model's other loops prefer (model/BUILD.bazel). Measured on the Intel VM with AMX, GPT-2's
// 124M parameters: 75-80 ms with 256-bit, 77-88 ms with 512-bit, with the bf16 copy.
#pragma GCC target("prefer-vector-width=256")

namespace model {

template <typename F>
void adamw_update(F* params, const F* grads, F* m, F* v, int64_t n, float lr, float beta1, float beta2,
                  float eps, float weight_decay, int t) {
  const F bc1 = adamw_bias_correction(F(beta1), t), bc2 = adamw_bias_correction(F(beta2), t);
  const F flr = lr, fb1 = beta1, fb2 = beta2, feps = eps, fwd = weight_decay;
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    adamw_update_one(&params[i], &m[i], &v[i], grads[i], flr, fb1, fb2, feps, fwd, bc1, bc2);
  }
}

void adamw_update_bf16_copy(float* params, uint16_t* params_bf16, const float* grads, float* m, float* v,
                            int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay, int t) {
  const float bc1 = adamw_bias_correction(beta1, t), bc2 = adamw_bias_correction(beta2, t);
#if defined(__AVX512F__)
  // Elements [lo, hi) with ordinary stores.
  auto plain = [&](int64_t lo, int64_t hi) {
#pragma omp simd
    for (int64_t i = lo; i < hi; ++i) {
      adamw_update_one(&params[i], &m[i], &v[i], grads[i], lr, beta1, beta2, eps, weight_decay, bc1, bc2);
      params_bf16[i] = FloatToBf16(params[i]);
    }
  };
  // The bf16 copy is read only by the next step's GEMMs, long after it is written: non-temporal
  // stores skip the write-allocate read of every line (AdamW moves 30 bytes a parameter, not 32).
  // Each block's bf16 values are staged in L1 (tmp), then streamed out 64 bytes at a time; the
  // elements before params_bf16's first 64-byte boundary and the last few take the plain path.
  constexpr int64_t kBlock = 1024;
  const int64_t head =
      std::min<int64_t>(n, static_cast<int64_t>((64 - reinterpret_cast<uintptr_t>(params_bf16) % 64) % 64) / 2);
  const int64_t body = (n - head) / 32 * 32;
  const int64_t blocks = (body + kBlock - 1) / kBlock;
  plain(0, head);
#pragma omp parallel
  {
#pragma omp for schedule(static) nowait
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t i0 = head + b * kBlock, len = std::min(kBlock, body - b * kBlock);  // a multiple of 32
      alignas(64) uint16_t tmp[kBlock];
#pragma omp simd
      for (int64_t j = 0; j < len; ++j) {
        const int64_t i = i0 + j;
        adamw_update_one(&params[i], &m[i], &v[i], grads[i], lr, beta1, beta2, eps, weight_decay, bc1, bc2);
        tmp[j] = FloatToBf16(params[i]);
      }
      for (int64_t j = 0; j < len; j += 32) {
        _mm512_stream_si512(reinterpret_cast<__m512i*>(params_bf16 + i0 + j),
                            _mm512_load_si512(reinterpret_cast<const __m512i*>(tmp + j)));
      }
    }
    _mm_sfence();  // this thread's streamed stores are visible before the region's closing barrier
  }
  plain(head + body, n);
#else
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    adamw_update_one(&params[i], &m[i], &v[i], grads[i], lr, beta1, beta2, eps, weight_decay, bc1, bc2);
    params_bf16[i] = FloatToBf16(params[i]);
  }
#endif
}

template void adamw_update<float>(float*, const float*, float*, float*, int64_t, float, float, float, float,
                                  float, int);
template void adamw_update<double>(double*, const double*, double*, double*, int64_t, float, float, float,
                                   float, float, int);

}  // namespace model
