// The Llama family's CPU ops, each forward against a plain fp64 reference and each backward
// against central finite differences of the fp64 op (h = 1e-6: truncation ~1e-12, rounding
// ~1e-10), and the fp32 op against the fp64 one: RMSNorm, RoPE, SwiGLU, and attention with fewer
// K/V heads than query heads (grouped-query) on both of its paths (the batched oneDNN primitive in
// fp32, the per-head loop in fp64).
#include <cmath>
#include <functional>
#include <vector>

#include "accounting/flop_counter.h"
#include "gtest/gtest.h"
#include "model/attention_cpu.h"
#include "model/cpu_gemm_backend.h"
#include "model/data/rng.h"
#include "model/rmsnorm_cpu.h"
#include "model/rmsnorm_math.h"
#include "model/rope_cpu.h"
#include "model/swiglu_cpu.h"

namespace model {
namespace {

std::vector<double> Normals(int64_t n, uint64_t seed, double scale = 1.0) {
  const std::vector<float> x = RandomNormals(n, seed);
  std::vector<double> out(x.begin(), x.end());
  for (double& v : out) v *= scale;
  return out;
}

std::vector<float> ToFloat(const std::vector<double>& x) { return std::vector<float>(x.begin(), x.end()); }

double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// d/dx_i of f(x) by central differences, for every i.
std::vector<double> NumericGrad(std::vector<double> x, const std::function<double(const std::vector<double>&)>& f) {
  constexpr double h = 1e-6;
  std::vector<double> g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double x0 = x[i];
    x[i] = x0 + h;
    const double up = f(x);
    x[i] = x0 - h;
    const double down = f(x);
    x[i] = x0;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << what << " element " << i;
  }
}

template <typename F>
void ExpectFloatNear(const std::vector<F>& got, const std::vector<double>& want, double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(double(got[i]), want[i], tol * (1 + std::fabs(want[i]))) << what << " element " << i;
  }
}

TEST(RmsNormCpu, ForwardAndBackwardAgainstFp64) {
  const int64_t B = 2, T = 3, C = 37;  // C not a multiple of a vector
  const std::vector<double> x = Normals(B * T * C, 1), w = Normals(C, 2), dy = Normals(B * T * C, 3);
  // The reference: y = x / sqrt(mean(x^2) + eps) * w.
  auto reference = [&](const std::vector<double>& xs, const std::vector<double>& ws) {
    std::vector<double> y(xs.size());
    for (int64_t r = 0; r < B * T; ++r) {
      double ss = 0;
      for (int64_t i = 0; i < C; ++i) ss += xs[r * C + i] * xs[r * C + i];
      const double s = 1 / std::sqrt(ss / C + double(kRmsNormEps));
      for (int64_t i = 0; i < C; ++i) y[r * C + i] = xs[r * C + i] * s * ws[i];
    }
    return y;
  };
  std::vector<double> y(B * T * C), rstd(B * T);
  rmsnorm_forward(y.data(), rstd.data(), x.data(), w.data(), B, T, C);
  ExpectNear(y, reference(x, w), 1e-13, "fp64 forward");
  // Backward: dinp accumulates (starts at 1), dweight written over.
  std::vector<double> dx(B * T * C, 1.0), dw(C, 7.0);
  rmsnorm_backward(dx.data(), dw.data(), dy.data(), x.data(), w.data(), rstd.data(), B, T, C,
                   GradWrite::kOverwrite);
  std::vector<double> want_dx = NumericGrad(x, [&](const std::vector<double>& xs) { return Dot(dy, reference(xs, w)); });
  for (double& v : want_dx) v += 1.0;
  ExpectNear(dx, want_dx, 1e-7, "dx");
  ExpectNear(dw, NumericGrad(w, [&](const std::vector<double>& ws) { return Dot(dy, reference(x, ws)); }), 1e-7, "dw");
  // fp32 against fp64, and the fused residual form bit for bit the two ops.
  const std::vector<float> xf = ToFloat(x), wf = ToFloat(w), dyf = ToFloat(dy);
  std::vector<float> yf(B * T * C), rf(B * T), dxf(B * T * C, 1.0f), dwf(C);
  rmsnorm_forward(yf.data(), rf.data(), xf.data(), wf.data(), B, T, C);
  ExpectFloatNear(yf, y, 1e-5, "fp32 forward");
  rmsnorm_backward(dxf.data(), dwf.data(), dyf.data(), xf.data(), wf.data(), rf.data(), B, T, C, GradWrite::kOverwrite);
  ExpectFloatNear(dxf, dx, 1e-4, "fp32 dx");
  ExpectFloatNear(dwf, dw, 1e-4, "fp32 dw");
  const std::vector<float> half = ToFloat(Normals(B * T * C, 4));
  std::vector<float> other(B * T * C), res(B * T * C), y2(B * T * C), r2(B * T), sum(B * T * C);
  for (size_t i = 0; i < sum.size(); ++i) {
    other[i] = xf[i] - half[i];
    sum[i] = half[i] + other[i];
  }
  residual_rmsnorm_forward(res.data(), y2.data(), r2.data(), half.data(), other.data(), wf.data(), B, T, C);
  std::vector<float> y3(B * T * C), r3(B * T);
  rmsnorm_forward(y3.data(), r3.data(), sum.data(), wf.data(), B, T, C);
  EXPECT_EQ(res, sum);
  EXPECT_EQ(y2, y3);
  EXPECT_EQ(r2, r3);
}

TEST(RopeCpu, RotatesAdjacentPairsOfQAndKAndItsBackwardIsTheTranspose) {
  const int64_t B = 2, T = 5, NH = 4, NKV = 2, hd = 6, QKV = (NH + 2 * NKV) * hd;
  const double theta = 10000;
  std::vector<double> cos(T * hd / 2), sin(T * hd / 2);
  rope_table(cos.data(), sin.data(), T, hd, theta);
  EXPECT_EQ(cos[0], 1.0);  // position 0: no rotation
  EXPECT_NEAR(sin[3 * (hd / 2) + 1], std::sin(3 * std::pow(theta, -2.0 / hd)), 1e-15);
  const std::vector<double> x = Normals(B * T * QKV, 5);
  std::vector<double> y = x;
  rope_forward(y.data(), cos.data(), sin.data(), B, T, NH, NKV, hd);
  // The reference: each pair (2i, 2i+1) of q's and k's heads as a complex number times e^(i angle).
  for (int64_t r = 0; r < B * T; ++r) {
    const int64_t t = r % T;
    for (int64_t c = 0; c < QKV; c += 2) {
      const double a = x[r * QKV + c], b = x[r * QKV + c + 1];
      double ya = a, yb = b;  // v: untouched
      if (c < (NH + NKV) * hd) {
        const double angle = t * std::pow(theta, -2.0 * ((c % hd) / 2) / hd);
        ya = a * std::cos(angle) - b * std::sin(angle);
        yb = a * std::sin(angle) + b * std::cos(angle);
      }
      ASSERT_NEAR(y[r * QKV + c], ya, 1e-13) << "row " << r << " channel " << c;
      ASSERT_NEAR(y[r * QKV + c + 1], yb, 1e-13) << "row " << r << " channel " << c + 1;
    }
  }
  // Backward: the gradient of <dy, rope(x)> with respect to x.
  const std::vector<double> dy = Normals(B * T * QKV, 6);
  std::vector<double> dx = dy;
  rope_backward(dx.data(), cos.data(), sin.data(), B, T, NH, NKV, hd);
  ExpectNear(dx, NumericGrad(x, [&](const std::vector<double>& xs) {
               std::vector<double> ys = xs;
               rope_forward(ys.data(), cos.data(), sin.data(), B, T, NH, NKV, hd);
               return Dot(dy, ys);
             }),
             1e-7, "dx");
  // fp32 against fp64.
  std::vector<float> cf(cos.size()), sf(sin.size());
  rope_table(cf.data(), sf.data(), T, hd, theta);
  std::vector<float> yf = ToFloat(x), dxf = ToFloat(dy);
  rope_forward(yf.data(), cf.data(), sf.data(), B, T, NH, NKV, hd);
  rope_backward(dxf.data(), cf.data(), sf.data(), B, T, NH, NKV, hd);
  ExpectFloatNear(yf, y, 1e-5, "fp32 forward");
  ExpectFloatNear(dxf, dx, 1e-5, "fp32 backward");
}

TEST(SwigluCpu, ForwardAndBackwardAgainstFp64) {
  const int64_t N = 6, Fh = 19;
  const std::vector<double> x = Normals(N * 2 * Fh, 7, 3.0), dy = Normals(N * Fh, 8);
  auto reference = [&](const std::vector<double>& xs) {
    std::vector<double> y(N * Fh);
    for (int64_t r = 0; r < N; ++r) {
      for (int64_t i = 0; i < Fh; ++i) {
        const double g = xs[r * 2 * Fh + i], u = xs[r * 2 * Fh + Fh + i];
        y[r * Fh + i] = g / (1 + std::exp(-g)) * u;
      }
    }
    return y;
  };
  std::vector<double> y(N * Fh), dx(N * 2 * Fh, 99.0);
  swiglu_forward(y.data(), x.data(), N, Fh);
  ExpectNear(y, reference(x), 1e-14, "fp64 forward");
  swiglu_backward(dx.data(), dy.data(), x.data(), N, Fh);  // written over
  ExpectNear(dx, NumericGrad(x, [&](const std::vector<double>& xs) { return Dot(dy, reference(xs)); }), 1e-7, "dx");
  const std::vector<float> xf = ToFloat(x), dyf = ToFloat(dy);
  std::vector<float> yf(N * Fh), dxf(N * 2 * Fh);
  swiglu_forward(yf.data(), xf.data(), N, Fh);
  swiglu_backward(dxf.data(), dyf.data(), xf.data(), N, Fh);
  ExpectFloatNear(yf, y, 1e-5, "fp32 forward");
  ExpectFloatNear(dxf, dx, 1e-5, "fp32 backward");
}

// Grouped-query attention against multi-head attention on K and V repeated per query head, and
// its gradients: dq as the repeated run's, dk and dv its group's sum; then by finite differences.
template <typename F>
void CheckGroupedAttention(int64_t B, int64_t T, int64_t NH, int64_t NKV, int64_t hs, double tol) {
  const int64_t C = NH * hs, KVW = NKV * hs, QKV = C + 2 * KVW, group = NH / NKV;
  const std::vector<double> qkv64 = Normals(B * T * QKV, 9), dy64 = Normals(B * T * C, 10);
  // The same inputs with K and V repeated for every query head: (B, T, 3C), multi-head.
  std::vector<double> mha(B * T * 3 * C);
  for (int64_t r = 0; r < B * T; ++r) {
    for (int64_t c = 0; c < C; ++c) mha[r * 3 * C + c] = qkv64[r * QKV + c];
    for (int64_t h = 0; h < NH; ++h) {
      for (int64_t e = 0; e < hs; ++e) {
        mha[r * 3 * C + C + h * hs + e] = qkv64[r * QKV + C + (h / group) * hs + e];
        mha[r * 3 * C + 2 * C + h * hs + e] = qkv64[r * QKV + C + KVW + (h / group) * hs + e];
      }
    }
  }
  std::vector<double> out_ref(B * T * C), att_ref(B * NH * T * T), dmha(B * T * 3 * C), datt(B * NH * T * T);
  attention_forward(out_ref.data(), att_ref.data(), mha.data(), B, T, C, NH);
  attention_backward(dmha.data(), datt.data(), dy64.data(), mha.data(), att_ref.data(), B, T, C, NH);
  std::vector<double> want(B * T * QKV, 0.0);
  for (int64_t r = 0; r < B * T; ++r) {
    for (int64_t c = 0; c < C; ++c) want[r * QKV + c] = dmha[r * 3 * C + c];
    for (int64_t h = 0; h < NH; ++h) {
      for (int64_t e = 0; e < hs; ++e) {
        want[r * QKV + C + (h / group) * hs + e] += dmha[r * 3 * C + C + h * hs + e];
        want[r * QKV + C + KVW + (h / group) * hs + e] += dmha[r * 3 * C + 2 * C + h * hs + e];
      }
    }
  }
  const std::vector<F> qkv(qkv64.begin(), qkv64.end()), dy(dy64.begin(), dy64.end());
  std::vector<F> out(B * T * C), att(B * NH * T * T), dqkv(B * T * QKV, F(5)), datt_f(B * NH * T * T);
  accounting::FlopCounter counter;
  {
    accounting::ScopedFlopCounter scope(&counter);
    attention_forward(out.data(), att.data(), qkv.data(), B, T, C, NH, NKV);
  }
  EXPECT_EQ(counter.matmul_total(), 4.0 * B * T * T * C);  // per query head, full T x T: as multi-head
  attention_backward(dqkv.data(), datt_f.data(), dy.data(), qkv.data(), att.data(), B, T, C, NH, NKV);
  ExpectFloatNear(out, out_ref, tol, "out");
  ExpectFloatNear(dqkv, want, tol, "dqkv");
}

TEST(AttentionCpu, GroupedQueryMatchesMultiHeadOnRepeatedKeysAndValues) {
  CheckGroupedAttention<double>(2, 7, 6, 2, 4, 1e-12);  // the per-head loop
  CheckGroupedAttention<double>(1, 5, 4, 1, 3, 1e-12);  // one K/V head (multi-query)
  {
    ScopedCpuGemmBackend on(CpuGemmBackend::kOneDnn);  // fp32 on oneDNN: the batched primitive
    CheckGroupedAttention<float>(2, 7, 6, 2, 4, 2e-5);
    CheckGroupedAttention<float>(2, 7, 4, 4, 4, 2e-5);  // NKV = NH: multi-head, as before
  }
  {
    ScopedCpuGemmBackend on(CpuGemmBackend::kOpenBlas);  // fp32 on OpenBLAS: the per-head loop
    CheckGroupedAttention<float>(2, 7, 6, 2, 4, 2e-5);
  }
}

// The grouped backward by finite differences of <dy, out> (fp64).
TEST(AttentionCpu, GroupedQueryBackwardMatchesFiniteDifferences) {
  const int64_t B = 1, T = 4, NH = 4, NKV = 2, hs = 3, C = NH * hs, QKV = C + 2 * NKV * hs;
  const std::vector<double> qkv = Normals(B * T * QKV, 11), dy = Normals(B * T * C, 12);
  std::vector<double> out(B * T * C), att(B * NH * T * T), dqkv(B * T * QKV), datt(B * NH * T * T);
  attention_forward(out.data(), att.data(), qkv.data(), B, T, C, NH, NKV);
  attention_backward(dqkv.data(), datt.data(), dy.data(), qkv.data(), att.data(), B, T, C, NH, NKV);
  ExpectNear(dqkv, NumericGrad(qkv, [&](const std::vector<double>& x) {
               std::vector<double> o(B * T * C), a(B * NH * T * T);
               attention_forward(o.data(), a.data(), x.data(), B, T, C, NH, NKV);
               return Dot(dy, o);
             }),
             1e-7, "dqkv");
}

}  // namespace
}  // namespace model
