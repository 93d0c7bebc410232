// CpuElementwise: the OpenMP implementation of elementwise.h. Loops are written so GCC
// vectorises them (`omp simd`, no calls in the inner loops): exp is a Cephes-style polynomial
// (FastExp below, ~2 ulp) because glibc's expf/tanhf do not vectorise without -ffast-math.
// Static schedules everywhere, matching the first touch of HostElementwiseData::Fill.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "micro/elementwise/elementwise.h"

namespace micro {
namespace {

// e^x for x in [-87.3, 88.7] (clamped): x = k ln2 + r, |r| <= ln2 / 2, e^r by the Cephes expf
// polynomial, 2^k by building the exponent bits. Branch-free, so it vectorises.
#pragma omp declare simd notinbranch
inline float FastExp(float x) {
  x = std::min(88.7f, std::max(-87.3f, x));
  const float t = x * 1.44269504088896341f;
  const float shifted = t + 12582912.0f;  // 1.5 * 2^23: rounds t to an integer in the mantissa
  int32_t bits;
  std::memcpy(&bits, &shifted, sizeof(bits));
  const int32_t k = bits - 0x4B400000;
  const float kf = shifted - 12582912.0f;
  const float r = (x - kf * 0.693359375f) - kf * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float er = p * r * r + r + 1.0f;
  const int32_t scale_bits = (k + 127) << 23;
  float scale;
  std::memcpy(&scale, &scale_bits, sizeof(scale));
  return er * scale;
}

#pragma omp declare simd notinbranch
inline float GeluTanh(float x) {
  const float k = 0.7978845608028654f;  // sqrt(2 / pi)
  const float u = k * (x + 0.044715f * x * x * x);
  // tanh(u) = 1 - 2 / (e^{2u} + 1); clamp so e^{2u} stays finite (tanh(9) == 1 in fp32).
  const float e = FastExp(2.0f * std::min(9.0f, std::max(-9.0f, u)));
  const float th = 1.0f - 2.0f / (e + 1.0f);
  return 0.5f * x * (1.0f + th);
}

void LayerNormRows(const ElementwiseProblem& p, const ElementwiseTensors& t) {
  const int64_t C = p.row;
  const float* __restrict w = t.small[0];
  const float* __restrict b = t.small[1];
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < p.rows(); ++r) {
    const float* __restrict x = t.big[0] + r * C;
    float* __restrict y = t.big[1] + r * C;
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int64_t c = 0; c < C; ++c) sum += x[c];
    const float mean = sum / C;
    float ss = 0;
#pragma omp simd reduction(+ : ss)
    for (int64_t c = 0; c < C; ++c) ss += (x[c] - mean) * (x[c] - mean);
    const float rstd = 1.0f / std::sqrt(ss / C + kLayerNormEps);
#pragma omp simd
    for (int64_t c = 0; c < C; ++c) y[c] = (x[c] - mean) * rstd * w[c] + b[c];
    t.small[2][r] = mean;
    t.small[3][r] = rstd;
  }
}

void SoftmaxRows(const ElementwiseProblem& p, const ElementwiseTensors& t) {
  const int64_t C = p.row;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < p.rows(); ++r) {
    const float* __restrict x = t.big[0] + r * C;
    float* __restrict y = t.big[1] + r * C;
    float mx = x[0];
#pragma omp simd reduction(max : mx)
    for (int64_t c = 0; c < C; ++c) mx = x[c] > mx ? x[c] : mx;
    // exp and sum in separate loops: GCC does not vectorise a reduction around the exp.
    // The row (4 KiB for C = 1024) is in L1 for the second and third passes.
#pragma omp simd
    for (int64_t c = 0; c < C; ++c) y[c] = FastExp(x[c] - mx);
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (int64_t c = 0; c < C; ++c) sum += y[c];
    const float inv = 1.0f / sum;
#pragma omp simd
    for (int64_t c = 0; c < C; ++c) y[c] *= inv;
  }
}

}  // namespace

void CpuElementwise(const ElementwiseProblem& p, const ElementwiseTensors& t) {
  const int64_t n = p.n;
  switch (p.op) {
    case ElementwiseOp::kScale: {
      const float* __restrict x = t.big[0];
      float* __restrict y = t.big[1];
#pragma omp parallel for simd schedule(static)
      for (int64_t i = 0; i < n; ++i) y[i] = kScaleFactor * x[i];
      break;
    }
    case ElementwiseOp::kAdd: {
      const float* __restrict x = t.big[0];
      const float* __restrict y = t.big[1];
      float* __restrict z = t.big[2];
#pragma omp parallel for simd schedule(static)
      for (int64_t i = 0; i < n; ++i) z[i] = x[i] + y[i];
      break;
    }
    case ElementwiseOp::kTriad: {
      const float* __restrict b = t.big[0];
      const float* __restrict c = t.big[1];
      float* __restrict a = t.big[2];
#pragma omp parallel for simd schedule(static)
      for (int64_t i = 0; i < n; ++i) a[i] = b[i] + kTriadScalar * c[i];
      break;
    }
    case ElementwiseOp::kGelu: {
      const float* __restrict x = t.big[0];
      float* __restrict y = t.big[1];
#pragma omp parallel for simd schedule(static)
      for (int64_t i = 0; i < n; ++i) y[i] = GeluTanh(x[i]);
      break;
    }
    case ElementwiseOp::kLayerNorm:
      LayerNormRows(p, t);
      break;
    case ElementwiseOp::kSoftmax:
      SoftmaxRows(p, t);
      break;
    case ElementwiseOp::kAdamW: {
      const AdamWParams a;
      const float c1 = 1.0f - std::pow(a.beta1, static_cast<float>(a.step));
      const float c2 = 1.0f - std::pow(a.beta2, static_cast<float>(a.step));
      float* __restrict pp = t.big[0];
      const float* __restrict g = t.big[1];
      float* __restrict m = t.big[2];
      float* __restrict v = t.big[3];
#pragma omp parallel for simd schedule(static)
      for (int64_t i = 0; i < n; ++i) {
        const float mi = a.beta1 * m[i] + (1.0f - a.beta1) * g[i];
        const float vi = a.beta2 * v[i] + (1.0f - a.beta2) * g[i] * g[i];
        const float mhat = mi / c1, vhat = vi / c2;
        pp[i] -= a.lr * (mhat / (std::sqrt(vhat) + a.eps) + a.weight_decay * pp[i]);
        m[i] = mi;
        v[i] = vi;
      }
      break;
    }
  }
}

}  // namespace micro
