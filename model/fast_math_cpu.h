// Branch-free float exp and tanh that GCC vectorises inside `#pragma omp simd` loops (glibc's
// expf / tanhf are scalar calls without -ffast-math). Used by the fp32 CPU ops on their hot
// loops (GeLU, the classifier's softmax); the double path keeps std::exp / std::tanh.
// Accuracy (checked in fast_math_cpu_test over dense grids): exp_fast within 2 ulp-ish
// (relative error < 4e-7) on [-87, 88]; tanh_fast absolute error < 5e-7 everywhere.
#ifndef MODEL_FAST_MATH_CPU_H_
#define MODEL_FAST_MATH_CPU_H_

#include <cmath>
#include <cstdint>
#include <cstring>

// The clamps below are branches with float arithmetic in their arms. GCC if-converts them (and so
// vectorises the loops that call these) only when it may assume float operations do not trap:
// without -fno-trapping-math, on AVX2 without AVX-512's masks, every loop here stayed scalar (GeLU
// 6x, the softmax 4x slower on a Zen 3). Every target that includes this header builds with it.
#if defined(__GNUC__) && !defined(__clang__) && !defined(__NO_TRAPPING_MATH__)
#error "model/fast_math_cpu.h needs -fno-trapping-math (VECTOR_MATH_COPTS in tools/bazel/copts.bzl says why)"
#endif

namespace model {

// e^x. Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, degree-6 Taylor/minimax polynomial,
// then scale by 2^n built in the exponent bits. Inputs are clamped to [-87.3, 88.7]
// (below: ~1e-38 instead of a denormal or 0; above: ~3e38 instead of inf).
inline float exp_fast(float x) {
  x = x < -87.3f ? -87.3f : x;
  x = x > 88.3f ? 88.3f : x;
  // n = round(x / ln2) with the 1.5 * 2^23 trick (round-to-nearest in the FPU).
  const float shifter = 12582912.0f;
  const float t = x * 1.44269504088896341f + shifter;
  const float n = t - shifter;
  const float r = (x - n * 0.693145751953125f) - n * 1.428606765330187045e-06f;
  // e^r on [-0.3466, 0.3466]: Taylor to r^7, relative error < 2e-8 before rounding.
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}

// tanh(x) = sign(x) (1 - 2 / (e^{2|x|} + 1)); |x| is clamped to 10, where the formula rounds to
// exactly +-1 as float's tanh does from |x| ~ 9.01 on (a result one ulp below 1 would put a
// spurious 1 - tanh^2 = 1.2e-7 into GeLU's gradient, times x^3 there). Absolute, not relative, accuracy near
// 0: what GeLU needs, since it uses 0.5 x (1 + tanh) and 1 - tanh^2.
inline float tanh_fast(float x) {
  const float ax = x < 0 ? -x : x;
  const float a = ax > 10.0f ? 10.0f : ax;
  const float e = exp_fast(2.0f * a);
  const float th = 1.0f - 2.0f / (e + 1.0f);
  return x < 0 ? -th : th;
}

// What the templated CPU ops call: the fast forms for float (training), std::exp / std::tanh for
// double (the gradient check).
inline float ExpCpu(float x) { return exp_fast(x); }
inline double ExpCpu(double x) { return std::exp(x); }
inline float TanhCpu(float x) { return tanh_fast(x); }
inline double TanhCpu(double x) { return std::tanh(x); }

}  // namespace model

#endif  // MODEL_FAST_MATH_CPU_H_
