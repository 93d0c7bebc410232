// ReferenceElementwise: plain serial loops in double precision, the definition of each op
// (elementwise.h) that the CPU and CUDA implementations are checked against.
#include <cmath>

#include "micro/elementwise/elementwise.h"
#include "model/adamw_math.h"

namespace micro {
namespace {

double GeluRef(double x) {
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

// One row of C: y = (x - mean) * rstd * w + b, with its mean and rstd (what backward keeps).
void LayerNormRowRef(const float* x, const float* w, const float* b, int64_t C, float* y, float* mean_out,
                     float* rstd_out) {
  double mean = 0, var = 0;
  for (int64_t c = 0; c < C; ++c) mean += x[c];
  mean /= C;
  for (int64_t c = 0; c < C; ++c) var += (x[c] - mean) * (x[c] - mean);
  var /= C;
  const double rstd = 1.0 / std::sqrt(var + kLayerNormEps);
  for (int64_t c = 0; c < C; ++c) y[c] = static_cast<float>((x[c] - mean) * rstd * w[c] + b[c]);
  *mean_out = static_cast<float>(mean);
  *rstd_out = static_cast<float>(rstd);
}

// One row of C: y = exp(x - max) / sum over the row.
void SoftmaxRowRef(const float* x, int64_t C, float* y) {
  double mx = x[0], sum = 0;
  for (int64_t c = 1; c < C; ++c) mx = std::max<double>(mx, x[c]);
  for (int64_t c = 0; c < C; ++c) sum += std::exp(x[c] - mx);
  for (int64_t c = 0; c < C; ++c) y[c] = static_cast<float>(std::exp(x[c] - mx) / sum);
}

}  // namespace

void ReferenceElementwise(const ElementwiseProblem& p, const ElementwiseTensors& t) {
  const int64_t n = p.n;
  switch (p.op) {
    case ElementwiseOp::kScale:
      for (int64_t i = 0; i < n; ++i) t.big[1][i] = static_cast<float>(kScaleFactor * double{t.big[0][i]});
      break;
    case ElementwiseOp::kAdd:
      for (int64_t i = 0; i < n; ++i) {
        t.big[2][i] = static_cast<float>(double{t.big[0][i]} + double{t.big[1][i]});
      }
      break;
    case ElementwiseOp::kTriad:
      for (int64_t i = 0; i < n; ++i) {
        t.big[2][i] = static_cast<float>(double{t.big[0][i]} + kTriadScalar * double{t.big[1][i]});
      }
      break;
    case ElementwiseOp::kGelu:
      for (int64_t i = 0; i < n; ++i) t.big[1][i] = static_cast<float>(GeluRef(t.big[0][i]));
      break;
    case ElementwiseOp::kLayerNorm:
      for (int64_t r = 0; r < p.rows(); ++r) {
        LayerNormRowRef(t.big[0] + r * p.row, t.small[0], t.small[1], p.row, t.big[1] + r * p.row,
                        &t.small[2][r], &t.small[3][r]);
      }
      break;
    case ElementwiseOp::kSoftmax:
      for (int64_t r = 0; r < p.rows(); ++r) SoftmaxRowRef(t.big[0] + r * p.row, p.row, t.big[1] + r * p.row);
      break;
    case ElementwiseOp::kAdamW: {
      const AdamWParams a;
      const double c1 = 1.0 - std::pow(double{a.beta1}, a.step);
      const double c2 = 1.0 - std::pow(double{a.beta2}, a.step);
      for (int64_t i = 0; i < n; ++i) {
        double p = t.big[0][i], m = t.big[2][i], v = t.big[3][i];
        model::adamw_update_one<double>(&p, &m, &v, t.big[1][i], a.lr, a.beta1, a.beta2, a.eps,
                                        a.weight_decay, c1, c2);
        t.big[0][i] = static_cast<float>(p);
        t.big[2][i] = static_cast<float>(m);
        t.big[3][i] = static_cast<float>(v);
      }
      break;
    }
  }
}

}  // namespace micro
