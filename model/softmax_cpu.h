// The softmax of one row of scores in place, vectorised (ExpCpu: fp32 exp_fast, fp64 std::exp):
// the training attention's causal rows (attention_cpu.cc) and the decoder's rows over its KV cache
// (kv_attention_cpu.cc).
#ifndef MODEL_SOFTMAX_CPU_H_
#define MODEL_SOFTMAX_CPU_H_

#include <cstdint>

#include "model/fast_math_cpu.h"

namespace model {

// p[0..n-1] = softmax(p[0..n-1]); n >= 1.
template <typename F>
void SoftmaxInPlace(F* p, int64_t n) {
  F maxval = p[0];
#pragma omp simd reduction(max : maxval)
  for (int64_t j = 1; j < n; ++j) maxval = p[j] > maxval ? p[j] : maxval;
  F sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t j = 0; j < n; ++j) {
    p[j] = ExpCpu(p[j] - maxval);
    sum += p[j];
  }
  const F inv = F(1) / sum;
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) p[j] *= inv;
}

}  // namespace model

#endif  // MODEL_SOFTMAX_CPU_H_
