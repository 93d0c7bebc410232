// The CPU GEMM backends: flag parsing, oneDNN's cached primitives against a double reference
// (transposes, strides, alpha, beta, bias; from one thread and from inside a parallel region),
// every backend (onednn, onednn_sgemm, openblas, and auto routing each shape to its choice)
// matching the same reference through cpu_gemm.
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/cpu_gemm_backend.h"
#include "model/data/rng.h"
#include "model/gemm_cpu.h"
#include "model/gpt_config.h"
#include "model/onednn_gemm.h"
#include "model/step_gemms.h"

namespace model {
namespace {

// C = alpha op(A) op(B) + bias + beta C in double, row-major with leading dimensions, with each
// element's forward error bound for an fp32 GEMM that sums in any order: the bound on a K-term
// dot product, gamma_K = K u / (1 - K u) times the sum of |a b| (Higham, "Accuracy and Stability
// of Numerical Algorithms", 3.1), widened by three roundings for alpha, the bias and beta C. A
// fixed relative tolerance is not a bound: where the sum cancels, a library that sums in another
// order (OpenBLAS's Zen kernel against its SkylakeX one) misses it while computing correctly; a
// wrong index or transpose misses this bound by orders of magnitude.
struct Want {
  std::vector<double> value, bound;
};

Want Reference(const OneDnnGemmShape& s, const std::vector<float>& A, const std::vector<float>& B,
               const float* bias, const std::vector<float>& C0) {
  constexpr double u = 0x1p-24;  // fp32's unit roundoff
  const double terms = static_cast<double>(s.K + 3);
  const double gamma = terms * u / (1 - terms * u);
  Want w{std::vector<double>(C0.begin(), C0.end()), std::vector<double>(C0.size(), 0.0)};
  for (int64_t m = 0; m < s.M; ++m) {
    for (int64_t n = 0; n < s.N; ++n) {
      double acc = 0, abs_acc = 0;
      for (int64_t k = 0; k < s.K; ++k) {
        const double a = s.trans_a ? A[k * s.lda + m] : A[m * s.lda + k];
        const double b = s.trans_b ? B[n * s.ldb + k] : B[k * s.ldb + n];
        acc += a * b;
        abs_acc += std::fabs(a * b);
      }
      double& c = w.value[m * s.ldc + n];
      const double bias_n = bias ? bias[n] : 0.0;
      w.bound[m * s.ldc + n] =
          gamma * (std::fabs(s.alpha) * abs_acc + std::fabs(bias_n) + std::fabs(s.beta * c));
      c = s.alpha * acc + bias_n + s.beta * c;
    }
  }
  return w;
}

void ExpectClose(const std::vector<float>& got, const Want& want) {
  ASSERT_EQ(got.size(), want.value.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want.value[i], want.bound[i]) << "at " << i;
  }
}

TEST(CpuGemmBackend, ParsesNamesAndRejectsOthersNamingTheFlag) {
  EXPECT_EQ(*ParseCpuGemmBackend("onednn"), CpuGemmBackend::kOneDnn);
  EXPECT_EQ(*ParseCpuGemmBackend("openblas"), CpuGemmBackend::kOpenBlas);
  EXPECT_EQ(*ParseCpuGemmBackend("onednn_sgemm"), CpuGemmBackend::kOneDnnSgemm);
  EXPECT_EQ(*ParseCpuGemmBackend("auto"), CpuGemmBackend::kAuto);
  auto bad = ParseCpuGemmBackend("bogus");
  ASSERT_FALSE(bad.ok());
  const std::string msg(bad.status().message());
  EXPECT_NE(msg.find("--cpu_gemm=bogus"), std::string::npos) << msg;
  EXPECT_NE(msg.find("onednn, onednn_sgemm, openblas, auto"), std::string::npos) << msg;
  EXPECT_EQ(CpuGemmBackendName(CpuGemmBackend::kOpenBlas), "openblas");
}

TEST(CpuGemmBackend, DefaultIsOneDnnAndScopesRestore) {
  EXPECT_EQ(GetCpuGemmBackend(), CpuGemmBackend::kOneDnn);
  {
    ScopedCpuGemmBackend scope(CpuGemmBackend::kOpenBlas);
    EXPECT_EQ(GetCpuGemmBackend(), CpuGemmBackend::kOpenBlas);
  }
  EXPECT_EQ(GetCpuGemmBackend(), CpuGemmBackend::kOneDnn);
}

struct Case {
  bool ta, tb;
  int64_t M, N, K, pad;  // pad: extra leading-dimension elements (strided views)
  float alpha, beta;
  bool bias;
};

TEST(OneDnnSgemm, MatchesDoubleReference) {
  const std::vector<Case> cases = {
      {false, false, 7, 9, 5, 0, 1, 0, false},      {false, true, 33, 65, 17, 0, 1, 0, true},
      {true, false, 12, 10, 31, 0, 1, 1, false},    {false, true, 16, 16, 8, 24, 0.125f, 0, false},
      {true, false, 16, 8, 16, 16, 0.5f, 0, false}, {false, false, 64, 48, 96, 3, 1, 0.5f, false},
      {false, true, 1, 50, 20, 0, 1, 0, true},
  };
  uint64_t seed = 1;
  for (const Case& c : cases) {
    const int64_t lda = (c.ta ? c.M : c.K) + c.pad, ldb = (c.tb ? c.K : c.N) + c.pad, ldc = c.N + c.pad;
    const OneDnnGemmShape s{c.ta, c.tb, c.M, c.N, c.K, lda, ldb, ldc, c.alpha, c.beta, c.bias};
    const auto A = RandomNormals((c.ta ? c.K : c.M) * s.lda, seed++);
    const auto B = RandomNormals((c.tb ? c.N : c.K) * s.ldb, seed++);
    const auto bias = RandomNormals(c.N, seed++);
    auto C = RandomNormals(c.M * s.ldc, seed++);
    const auto want = Reference(s, A, B, c.bias ? bias.data() : nullptr, C);
    OneDnnSgemm(s, A.data(), B.data(), c.bias ? bias.data() : nullptr, C.data());
    SCOPED_TRACE(testing::Message() << "M=" << c.M << " N=" << c.N << " K=" << c.K << " ta=" << c.ta
                                    << " tb=" << c.tb << " impl " << OneDnnImplName(s));
    ExpectClose(C, want);
  }
}

// Packed row-major operands: lda is op(A)'s stored row length (K, or M when transposed), ldb
// op(B)'s (N, or K when transposed), ldc = N; no scaling, no accumulation, no bias.
TEST(OneDnnSgemm, PackedShapesHaveRowMajorLeadingDimensions) {
  const int64_t M = 3, N = 5, K = 7;
  const struct {
    bool ta, tb;
    int64_t lda, ldb;
  } cases[] = {{false, false, K, N}, {false, true, K, K}, {true, false, M, N}, {true, true, M, K}};
  for (const auto& c : cases) {
    SCOPED_TRACE(testing::Message() << "ta=" << c.ta << " tb=" << c.tb);
    const OneDnnGemmShape s = PackedGemmShape(c.ta, c.tb, M, N, K);
    const OneDnnGemmShape want{c.ta,       c.tb,          M, N, K, c.lda, c.ldb, /*ldc=*/N, /*alpha=*/1,
                               /*beta=*/0, /*bias=*/false};
    EXPECT_TRUE(s == want) << "lda=" << s.lda << " ldb=" << s.ldb << " ldc=" << s.ldc;
  }
}

TEST(OneDnnSgemm, CreatesOnePrimitivePerShape) {
  OneDnnGemmShape s = PackedGemmShape(false, false, 19, 23, 29);
  const auto A = RandomNormals(19 * 29, 5), B = RandomNormals(29 * 23, 6);
  std::vector<float> C(19 * 23);
  const int64_t before = OneDnnCachedPrimitives();
  for (int i = 0; i < 3; ++i) OneDnnSgemm(s, A.data(), B.data(), nullptr, C.data());
  EXPECT_EQ(OneDnnCachedPrimitives(), before + 1);
  s.beta = 1;  // another post-op: another primitive
  OneDnnSgemm(s, A.data(), B.data(), nullptr, C.data());
  EXPECT_EQ(OneDnnCachedPrimitives(), before + 2);
}

TEST(OneDnnSgemm, RunsConcurrentlyInsideAParallelRegion) {
  // As attention does: one small GEMM per (batch, head), each on its own thread.
  const int64_t H = 8, T = 24, hs = 16;
  const auto q = RandomNormals(H * T * hs, 7), k = RandomNormals(H * T * hs, 8);
  std::vector<float> out(H * T * T, 0);
#pragma omp parallel for schedule(static)
  for (int64_t h = 0; h < H; ++h) {
    cpu_gemm(false, true, T, T, hs, 0.25f, q.data() + h * T * hs, hs, k.data() + h * T * hs, hs, 0.0f,
             out.data() + h * T * T, T);
  }
  for (int64_t h = 0; h < H; ++h) {
    for (int64_t i = 0; i < T; ++i) {
      for (int64_t j = 0; j < T; ++j) {
        double ref = 0;
        for (int64_t d = 0; d < hs; ++d)
          ref += double(q[h * T * hs + i * hs + d]) * k[h * T * hs + j * hs + d];
        ASSERT_NEAR(out[h * T * T + i * T + j], 0.25 * ref, 1e-4);
      }
    }
  }
}

// The shapes the GPT-2 step runs get a JIT implementation, never oneDNN's reference loops
// ("ref:any", hundreds of times slower): every Linear GEMM of the step, and attention's
// per-head products (strided views into the qkv buffer, alpha = 1/sqrt(hs)), one by one and
// batched over every (batch, head).
TEST(OneDnnSgemm, ModelShapesGetJitKernels) {
  const GptConfig c = *GptPreset("gpt2");
  const int B = 4, T = 64;
  std::vector<OneDnnGemmShape> shapes;
  for (const StepGemm& g : CpuStepGemms(c, B, T)) {
    OneDnnGemmShape s = PackedGemmShape(g.trans_a, g.trans_b, g.M, g.N, g.K);
    s.beta = g.accumulate ? 1.0f : 0.0f;
    s.bias = g.bias;
    shapes.push_back(s);
  }
  const int64_t C = c.width, C3 = 3 * C, hs = C / c.heads;
  const float scale = 1.0f / std::sqrt(float(hs));
  auto attn = [&](bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, int64_t lda, int64_t ldb,
                  int64_t ldc) {
    OneDnnGemmShape s;
    s.trans_a = ta, s.trans_b = tb, s.M = M, s.N = N, s.K = K, s.alpha = alpha;
    s.lda = lda, s.ldb = ldb, s.ldc = ldc;
    shapes.push_back(s);
  };
  attn(false, true, T, T, hs, scale, C3, C3, T);   // scores = q k^T
  attn(false, false, T, hs, T, 1, T, C3, C);       // out = att v
  attn(false, true, T, T, hs, 1, C, C3, T);        // datt = dout v^T
  attn(true, false, T, hs, T, 1, T, C, C3);        // dv = att^T dout
  attn(false, false, T, hs, T, scale, T, C3, C3);  // dq = dscores k
  attn(true, false, T, hs, T, scale, T, C3, C3);   // dk = dscores^T q
  // The same products batched over every (batch, head), as fp32 attention runs them on oneDNN.
  auto batched = [&](bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, int64_t lda, int64_t sa0,
                     int64_t sa1, int64_t ldb, int64_t sb0, int64_t sb1, int64_t ldc, int64_t sc0, int64_t sc1) {
    OneDnnGemmShape s{ta, tb, M, N, K, lda, ldb, ldc, alpha, 0.0f, false};
    s.batch[0] = B, s.batch[1] = c.heads;
    s.a_stride[0] = sa0, s.a_stride[1] = sa1, s.b_stride[0] = sb0, s.b_stride[1] = sb1;
    s.c_stride[0] = sc0, s.c_stride[1] = sc1;
    shapes.push_back(s);
  };
  const int64_t NH = c.heads, TT = T * T;
  batched(false, true, T, T, hs, scale, C3, T * C3, hs, C3, T * C3, hs, T, NH * TT, TT);  // scores
  batched(false, false, T, hs, T, 1, T, NH * TT, TT, C3, T * C3, hs, C, T * C, hs);       // out
  batched(false, true, T, T, hs, 1, C, T * C, hs, C3, T * C3, hs, T, NH * TT, TT);        // datt
  batched(true, false, T, hs, T, 1, T, NH * TT, TT, C, T * C, hs, C3, T * C3, hs);        // dv
  batched(false, false, T, hs, T, scale, T, NH * TT, TT, C3, T * C3, hs, C3, T * C3, hs);  // dq
  batched(true, false, T, hs, T, scale, T, NH * TT, TT, C3, T * C3, hs, C3, T * C3, hs);   // dk
  for (const OneDnnGemmShape& s : shapes) {
    const std::string impl = OneDnnImplName(s);
    EXPECT_NE(impl.rfind("ref", 0), 0u) << "M=" << s.M << " N=" << s.N << " K=" << s.K << " ta=" << s.trans_a
                                        << " tb=" << s.trans_b << ": " << impl;
  }
}

// Each formulation (C = A·B on oneDNN's primitive, Cᵀ = Bᵀ·Aᵀ on dnnl_sgemm and on OpenBLAS)
// gives the reference's result for every transpose pair, strided operands, alpha and beta.
TEST(CpuGemm, EveryBackendMatchesTheReference) {
  const std::vector<Case> cases = {
      {false, false, 40, 70, 130, 0, 1, 0, false}, {false, true, 33, 65, 17, 5, 1, 0, false},
      {true, false, 12, 10, 31, 0, 1, 1, false},   {true, true, 40, 70, 130, 0, 2, 1, false},
      {false, false, 64, 48, 96, 3, 0.5f, 0.5f, false},
  };
  uint64_t seed = 100;
  for (const Case& c : cases) {
    const int64_t lda = (c.ta ? c.M : c.K) + c.pad, ldb = (c.tb ? c.K : c.N) + c.pad, ldc = c.N + c.pad;
    const OneDnnGemmShape s{c.ta, c.tb, c.M, c.N, c.K, lda, ldb, ldc, c.alpha, c.beta, false};
    const auto A = RandomNormals((c.ta ? c.K : c.M) * lda, seed++);
    const auto B = RandomNormals((c.tb ? c.N : c.K) * ldb, seed++);
    const auto C0 = RandomNormals(c.M * ldc, seed++);
    const auto want = Reference(s, A, B, nullptr, C0);
    for (CpuGemmBackend b : kConcreteCpuGemms) {
      SCOPED_TRACE(testing::Message() << CpuGemmBackendName(b) << " M=" << c.M << " N=" << c.N << " K=" << c.K
                                      << " ta=" << c.ta << " tb=" << c.tb);
      ScopedCpuGemmBackend scope(b);
      auto C = C0;
      cpu_gemm(c.ta, c.tb, c.M, c.N, c.K, c.alpha, A.data(), lda, B.data(), ldb, c.beta, C.data(), ldc);
      ExpectClose(C, want);
    }
  }
}

TEST(CpuGemm, AutoRunsEachShapesChoiceAndOneDnnForOthers) {
  ASSERT_TRUE(SetCpuGemmChoices({{false, false, 40, 70, 130, CpuGemmBackend::kOpenBlas},
                                 {true, false, 40, 70, 130, CpuGemmBackend::kOneDnnSgemm}})
                  .ok());
  {
    ScopedCpuGemmBackend scope(CpuGemmBackend::kAuto);
    EXPECT_EQ(ResolveCpuGemmBackend(false, false, 40, 70, 130), CpuGemmBackend::kOpenBlas);
    EXPECT_EQ(ResolveCpuGemmBackend(true, false, 40, 70, 130), CpuGemmBackend::kOneDnnSgemm);
    EXPECT_EQ(ResolveCpuGemmBackend(false, true, 40, 70, 130), CpuGemmBackend::kOneDnn);  // no choice
    EXPECT_EQ(ResolveCpuGemmBackend(false, false, 41, 70, 130), CpuGemmBackend::kOneDnn);
    // The routed call gives the reference's result.
    const auto A = RandomNormals(40 * 130, 31), B = RandomNormals(130 * 70, 32);
    const OneDnnGemmShape s = PackedGemmShape(false, false, 40, 70, 130);
    std::vector<float> C(40 * 70, 0.0f);
    cpu_gemm(false, false, 40, 70, 130, 1.0f, A.data(), 130, B.data(), 70, 0.0f, C.data(), 70);
    ExpectClose(C, Reference(s, A, B, nullptr, std::vector<float>(40 * 70, 0.0f)));
  }
  // A fixed backend ignores the table.
  {
    ScopedCpuGemmBackend scope(CpuGemmBackend::kOneDnnSgemm);
    EXPECT_EQ(ResolveCpuGemmBackend(false, false, 40, 70, 130), CpuGemmBackend::kOneDnnSgemm);
  }
  EXPECT_EQ(GetCpuGemmChoices().size(), 2u);
  EXPECT_FALSE(SetCpuGemmChoices({{false, false, 1, 1, 1, CpuGemmBackend::kAuto}}).ok());
  EXPECT_EQ(GetCpuGemmChoices().size(), 2u);  // a refused table leaves the old one
  ASSERT_TRUE(SetCpuGemmChoices({}).ok());
}

}  // namespace
}  // namespace model
