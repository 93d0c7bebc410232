// CpuElementwise: the OpenMP implementation of elementwise.h. Loops are written so GCC
// vectorises them (`omp simd`, no calls in the inner loops): exp and tanh are the model's
// polynomials (model/fast_math_cpu.h) because glibc's expf/tanhf do not vectorise without
// -ffast-math.
// Static schedules everywhere, matching the first touch of HostElementwiseData::Fill.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "micro/elementwise/elementwise.h"
#include "model/adamw_math.h"
#include "model/fast_math_cpu.h"
#include "model/gelu_math.h"

namespace micro {
namespace {

// GeLU (tanh) with the model's vectorisable tanh: the same maths the CPU model runs.
inline float GeluTanh(float x) { return model::gelu_from_tanh(x, model::tanh_fast(model::gelu_tanh_arg(x))); }

// y[i] = f(x[i]) over n elements (f inlined into the vectorised loop).
template <typename F>
void Map(int64_t n, const float* __restrict x, float* __restrict y, F f) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

// z[i] = f(x[i], y[i]) over n elements.
template <typename F>
void Map(int64_t n, const float* __restrict x, const float* __restrict y, float* __restrict z, F f) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) z[i] = f(x[i], y[i]);
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
    for (int64_t c = 0; c < C; ++c) y[c] = model::exp_fast(x[c] - mx);
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
    case ElementwiseOp::kScale: Map(n, t.big[0], t.big[1], [](float x) { return kScaleFactor * x; }); break;
    case ElementwiseOp::kAdd:
      Map(n, t.big[0], t.big[1], t.big[2], [](float x, float y) { return x + y; });
      break;
    case ElementwiseOp::kTriad:
      Map(n, t.big[0], t.big[1], t.big[2], [](float b, float c) { return b + kTriadScalar * c; });
      break;
    case ElementwiseOp::kGelu: Map(n, t.big[0], t.big[1], [](float x) { return GeluTanh(x); }); break;
    case ElementwiseOp::kLayerNorm: LayerNormRows(p, t); break;
    case ElementwiseOp::kSoftmax: SoftmaxRows(p, t); break;
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
        model::adamw_update_one(&pp[i], &m[i], &v[i], g[i], a.lr, a.beta1, a.beta2, a.eps, a.weight_decay, c1,
                                c2);
      }
      break;
    }
  }
}

}  // namespace micro
