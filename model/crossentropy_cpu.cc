// Fused classifier loss and in-place gradient on the CPU, OpenMP over rows; fp32 uses the
// vectorisable exp_fast (relative error < 4e-7), fp64 std::exp.
#include "model/crossentropy_cpu.h"

#include <cmath>

#include "model/bf16.h"
#include "model/fast_math_cpu.h"

namespace model {

template <typename F>
void crossentropy_forward(F* losses, F* lse, const F* logits, const int32_t* targets, int64_t B, int64_t T,
                          int64_t V, int64_t Vp) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < B * T; ++r) {
    const F* row = logits + r * Vp;
    F maxval = row[0];
#pragma omp simd reduction(max : maxval)
    for (int64_t i = 1; i < V; ++i) maxval = row[i] > maxval ? row[i] : maxval;
    // Sum of exps: lanes in F, each lane's partial sum of at most V/8 terms in [0, 1].
    F sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < V; ++i) sum += ExpCpu(row[i] - maxval);
    const F l = maxval + std::log(sum);
    lse[r] = l;
    losses[r] = l - row[targets[r]];
  }
}

template <typename F>
void crossentropy_softmax_backward(F* logits, const F* lse, const int32_t* targets, F dloss, int64_t B,
                                   int64_t T, int64_t V, int64_t Vp) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < B * T; ++r) {
    F* row = logits + r * Vp;
    const F l = lse[r];
#pragma omp simd
    for (int64_t i = 0; i < V; ++i) row[i] = ExpCpu(row[i] - l) * dloss;
    for (int64_t i = V; i < Vp; ++i) row[i] = 0;
    row[targets[r]] -= dloss;
  }
}

void crossentropy_softmax_backward_bf16(uint16_t* dlogits, const float* logits, const float* lse,
                                        const int32_t* targets, float dloss, int64_t B, int64_t T, int64_t V,
                                        int64_t Vp) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < B * T; ++r) {
    const float* row = logits + r * Vp;
    uint16_t* out = dlogits + r * Vp;
    const float l = lse[r];
    const int64_t t = targets[r];
    // The same two roundings as the fp32 form: exp * dloss, then (at the target) minus dloss.
#pragma omp simd
    for (int64_t i = 0; i < V; ++i) {
      const float p = ExpCpu(row[i] - l) * dloss;
      out[i] = FloatToBf16(i == t ? p - dloss : p);
    }
    for (int64_t i = V; i < Vp; ++i) out[i] = 0;
  }
}

template void crossentropy_forward<float>(float*, float*, const float*, const int32_t*, int64_t, int64_t,
                                          int64_t, int64_t);
template void crossentropy_forward<double>(double*, double*, const double*, const int32_t*, int64_t, int64_t,
                                           int64_t, int64_t);
template void crossentropy_softmax_backward<float>(float*, const float*, const int32_t*, float, int64_t,
                                                   int64_t, int64_t, int64_t);
template void crossentropy_softmax_backward<double>(double*, const double*, const int32_t*, double, int64_t,
                                                    int64_t, int64_t, int64_t);

}  // namespace model
