// Token + position embedding forward/backward on the CPU.
#include "model/encoder_cpu.h"

#include <algorithm>

namespace model {

template <typename F>
void encoder_forward(F* out, const int32_t* inp, const F* wte, const F* wpe, int64_t B, int64_t T,
                     int64_t C) {
#pragma omp parallel for schedule(static)
  for (int64_t bt = 0; bt < B * T; ++bt) {
    const int64_t t = bt % T;
    const F* te = wte + static_cast<int64_t>(inp[bt]) * C;
    F* o = out + bt * C;
    if (wpe == nullptr) {  // no position table (RoPE rotates q and k instead)
#pragma omp simd
      for (int64_t i = 0; i < C; ++i) o[i] = te[i];
      continue;
    }
    const F* pe = wpe + t * C;
#pragma omp simd
    for (int64_t i = 0; i < C; ++i) o[i] = te[i] + pe[i];
  }
}

template <typename F>
void encoder_backward(F* dwte, F* dwpe, const F* dout, const int32_t* inp, int64_t B, int64_t T, int64_t C,
                      GradWrite wpe_write) {
  const bool overwrite_wpe = wpe_write == GradWrite::kOverwrite;
  constexpr int64_t kBlock = 64;
  const int64_t blocks = (C + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t c0 = blk * kBlock, n = std::min(kBlock, C - c0);
    for (int64_t bt = 0; bt < B * T; ++bt) {
      const int64_t t = bt % T;
      const F* d = dout + bt * C + c0;
      F* te = dwte + static_cast<int64_t>(inp[bt]) * C + c0;
      if (dwpe == nullptr) {
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) te[j] += d[j];
        continue;
      }
      F* pe = dwpe + t * C + c0;
      const bool first = overwrite_wpe && bt < T;  // b = 0: the first write of each position's row
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) {
        te[j] += d[j];
        pe[j] = first ? d[j] : pe[j] + d[j];
      }
    }
  }
}

template void encoder_forward<float>(float*, const int32_t*, const float*, const float*, int64_t, int64_t,
                                     int64_t);
template void encoder_forward<double>(double*, const int32_t*, const double*, const double*, int64_t, int64_t,
                                      int64_t);
template void encoder_backward<float>(float*, float*, const float*, const int32_t*, int64_t, int64_t,
                                      int64_t, GradWrite);
template void encoder_backward<double>(double*, double*, const double*, const int32_t*, int64_t, int64_t,
                                       int64_t, GradWrite);

}  // namespace model
