// The row-major products of gemm_spec.h, run through the reference runner, against the CPU ops
// and plain loops: this pins the column-major index mapping the cuBLASLt runner receives.
#include "model/cuda/gemm_spec.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/data/rng.h"
#include "model/gelu_math.h"
#include "model/matmul_cpu.h"

namespace model {
namespace cuda {
namespace {

void ExpectClose(const std::vector<float>& got, const std::vector<float>& want, double tol,
                 const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * (1.0 + std::fabs(want[i]))) << what << " at " << i;
  }
}

void RunRef(const GemmCall& call) {
  ASSERT_EQ(CheckGemmSpec(call.spec), "") << DescribeGemm(call.spec);
  MakeReferenceGemmRunner()->Run(call.spec, call.ptrs);
}

TEST(GemmSpec, LinearForwardWithBiasAndResidualMatchesCpu) {
  const int64_t B = 2, T = 3, C = 5, OC = 7, R = B * T;
  auto inp = RandomNormals(R * C, 1), w = RandomNormals(OC * C, 2), bias = RandomNormals(OC, 3),
       res = RandomNormals(R * OC, 4);
  std::vector<float> want(R * OC);
  matmul_forward(want.data(), inp.data(), w.data(), bias.data(), B, T, C, OC);
  for (int64_t i = 0; i < R * OC; ++i) want[i] += res[i];
  std::vector<float> out(R * OC, NAN);
  RunRef(LinearForward(out.data(), inp.data(), w.data(), bias.data(), res.data(), nullptr, R, C, OC,
                       StorageType::kFp32, false));
  ExpectClose(out, want, 1e-5, "out");
  // In place: residual == out.
  std::vector<float> inplace = res;
  RunRef(LinearForward(inplace.data(), inp.data(), w.data(), bias.data(), inplace.data(), nullptr, R, C, OC,
                       StorageType::kFp32, false));
  ExpectClose(inplace, want, 1e-5, "in place");
}

TEST(GemmSpec, LinearForwardGeluAuxKeepsTheInput) {
  const int64_t R = 4, C = 6, OC = 8;
  auto inp = RandomNormals(R * C, 5), w = RandomNormals(OC * C, 6), bias = RandomNormals(OC, 7);
  std::vector<float> pre(R * OC);
  matmul_forward(pre.data(), inp.data(), w.data(), bias.data(), 1, R, C, OC);
  std::vector<float> out(R * OC), aux(R * OC);
  RunRef(LinearForward(out.data(), inp.data(), w.data(), bias.data(), nullptr, aux.data(), R, C, OC,
                       StorageType::kFp32, false));
  ExpectClose(aux, pre, 1e-5, "aux");
  std::vector<float> want(R * OC);
  for (int64_t i = 0; i < R * OC; ++i) want[i] = gelu_tanh(pre[i]);
  ExpectClose(out, want, 1e-5, "gelu");
}

TEST(GemmSpec, LinearBackwardMatchesCpu) {
  const int64_t B = 1, T = 6, C = 5, OC = 4, R = B * T;
  auto inp = RandomNormals(R * C, 8), w = RandomNormals(OC * C, 9), dout = RandomNormals(R * OC, 10);
  std::vector<float> want_dinp(R * C), want_dw(OC * C, 0.5f);
  matmul_backward(want_dinp.data(), want_dw.data(), static_cast<float*>(nullptr), dout.data(), inp.data(),
                  w.data(), B, T, C, OC);
  std::vector<float> dinp(R * C, NAN), dw(OC * C, 0.5f);
  RunRef(
      LinearBackwardInput(dinp.data(), dout.data(), w.data(), nullptr, R, C, OC, StorageType::kFp32, false));
  RunRef(LinearBackwardWeight(dw.data(), dout.data(), inp.data(), R, C, OC, StorageType::kFp32, false));
  ExpectClose(dinp, want_dinp, 1e-5, "dinp");
  ExpectClose(dw, want_dw, 1e-5, "dweight (accumulated onto 0.5)");
  // The DGELU epilogue multiplies by gelu'(aux).
  auto aux = RandomNormals(R * C, 11);
  RunRef(LinearBackwardInput(dinp.data(), dout.data(), w.data(), aux.data(), R, C, OC, StorageType::kFp32,
                             false));
  for (int64_t i = 0; i < R * C; ++i) want_dinp[i] *= gelu_tanh_grad(aux[i]);
  ExpectClose(dinp, want_dinp, 1e-5, "dgelu");
}

TEST(GemmSpec, AttentionProductsMatchLoops) {
  const int64_t N = 3, T = 5, hs = 4;
  auto x = RandomNormals(N * T * hs, 12), y = RandomNormals(N * T * hs, 13), p = RandomNormals(N * T * T, 14);
  const float alpha = 0.5f;
  std::vector<float> scores(N * T * T), prod(N * T * hs), prod_t(N * T * hs);
  RunRef(AttentionScores(scores.data(), x.data(), y.data(), N, T, hs, alpha, StorageType::kFp32, false));
  RunRef(AttentionProduct(prod.data(), p.data(), y.data(), N, T, hs, alpha, StorageType::kFp32, false));
  RunRef(AttentionProductT(prod_t.data(), p.data(), y.data(), N, T, hs, alpha, StorageType::kFp32, false));
  std::vector<float> want_s(N * T * T), want_p(N * T * hs), want_pt(N * T * hs);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t i = 0; i < T; ++i) {
      for (int64_t j = 0; j < T; ++j) {
        double s = 0;
        for (int64_t e = 0; e < hs; ++e) s += x[(n * T + i) * hs + e] * y[(n * T + j) * hs + e];
        want_s[(n * T + i) * T + j] = static_cast<float>(alpha * s);
      }
      for (int64_t e = 0; e < hs; ++e) {
        double a = 0, b = 0;
        for (int64_t j = 0; j < T; ++j) {
          a += p[(n * T + i) * T + j] * y[(n * T + j) * hs + e];
          b += p[(n * T + j) * T + i] * y[(n * T + j) * hs + e];
        }
        want_p[(n * T + i) * hs + e] = static_cast<float>(alpha * a);
        want_pt[(n * T + i) * hs + e] = static_cast<float>(alpha * b);
      }
    }
  }
  ExpectClose(scores, want_s, 1e-6, "x y^T");
  ExpectClose(prod, want_p, 1e-6, "p y");
  ExpectClose(prod_t, want_pt, 1e-6, "p^T y");
}

TEST(GemmSpec, Bf16StorageRoundsOnceIntoTheOutput) {
  const int64_t R = 8, C = 16, OC = 8;
  auto inp = RandomNormals(R * C, 15), w = RandomNormals(OC * C, 16);
  std::vector<Bf16> inp16(R * C), w16(OC * C), out16(R * OC);
  for (int64_t i = 0; i < R * C; ++i) inp16[i] = FloatToBf16(inp[i]);
  for (int64_t i = 0; i < OC * C; ++i) w16[i] = FloatToBf16(w[i]);
  RunRef(LinearForward(out16.data(), inp16.data(), w16.data(), nullptr, nullptr, nullptr, R, C, OC,
                       StorageType::kBf16, false));
  for (int64_t r = 0; r < R; ++r) {
    for (int64_t o = 0; o < OC; ++o) {
      double s = 0;
      for (int64_t c = 0; c < C; ++c) {
        s += static_cast<double>(Bf16ToFloat(inp16[r * C + c])) * Bf16ToFloat(w16[o * C + c]);
      }
      EXPECT_EQ(out16[r * OC + o].bits, FloatToBf16(static_cast<float>(s)).bits);
    }
  }
  // bf16 inputs accumulate into fp32 weight gradients.
  const GemmCall g =
      LinearBackwardWeight(nullptr, out16.data(), inp16.data(), R, C, OC, StorageType::kBf16, false);
  EXPECT_EQ(g.spec.ab_type, StorageType::kBf16);
  EXPECT_EQ(g.spec.cd_type, StorageType::kFp32);
  EXPECT_EQ(g.spec.beta, 1.0f);
}

TEST(GemmSpec, ChecksAndDescriptions) {
  GemmCall call = LinearForward(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 12288, 768, 2304,
                                StorageType::kBf16, false);
  EXPECT_EQ(CheckGemmSpec(call.spec), "");
  EXPECT_EQ(DescribeGemm(call.spec), "gemm m=2304 n=12288 k=768 A^T B bf16->bf16");
  call.spec.lda = 10;
  EXPECT_NE(CheckGemmSpec(call.spec).find("lda=10"), std::string::npos);
  GemmSpec bad;
  EXPECT_NE(CheckGemmSpec(bad).find("must be >= 1"), std::string::npos);
  // tf32 only applies to fp32 inputs.
  EXPECT_TRUE(
      LinearForward(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 4, 4, 4, StorageType::kFp32, true)
          .spec.tf32);
  EXPECT_FALSE(
      LinearForward(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 4, 4, 4, StorageType::kBf16, true)
          .spec.tf32);
}

TEST(GemmSpec, AlignmentBytes) {
  alignas(256) static char buf[1024];
  EXPECT_EQ(AlignmentBytes(buf, 768, 0, 2), 16);
  EXPECT_EQ(AlignmentBytes(buf + 2, 768, 0, 2), 2);
  EXPECT_EQ(AlignmentBytes(buf, 5, 0, 2), 2);      // odd leading dimension
  EXPECT_EQ(AlignmentBytes(buf, 8, 7 * 7, 4), 4);  // odd batch stride, fp32
  EXPECT_EQ(AlignmentBytes(buf + 8, 1024, 0, 4), 8);
}

}  // namespace
}  // namespace cuda
}  // namespace model
