// The CPU ops against plain reference loops (the model-level gradient check covers every
// backward; these pin the forward semantics and the FLOP reports one op at a time).
#include <cmath>
#include <vector>

#include "accounting/flop_counter.h"
#include "gtest/gtest.h"
#include "model/attention_cpu.h"
#include "model/cpu_gemm_backend.h"
#include "model/crossentropy_cpu.h"
#include "model/data/rng.h"
#include "model/gelu_cpu.h"
#include "model/layernorm_cpu.h"
#include "model/matmul_cpu.h"
#include "model/residual_cpu.h"

namespace model {
namespace {

TEST(MatmulCpu, ForwardMatchesLoopsAndCountsFlops) {
  const int64_t B = 2, T = 5, C = 7, OC = 9;
  auto inp = RandomNormals(B * T * C, 1), w = RandomNormals(OC * C, 2), bias = RandomNormals(OC, 3);
  std::vector<float> out(B * T * OC);
  accounting::FlopCounter counter;
  {
    accounting::ScopedFlopCounter scope(&counter);
    matmul_forward(out.data(), inp.data(), w.data(), bias.data(), B, T, C, OC, "test");
  }
  EXPECT_EQ(counter.matmul_total(), 2.0 * B * T * C * OC);
  EXPECT_EQ(counter.by_tag().at("test"), 2.0 * B * T * C * OC);
  for (int64_t r = 0; r < B * T; ++r) {
    for (int64_t o = 0; o < OC; ++o) {
      double ref = bias[o];
      for (int64_t c = 0; c < C; ++c) ref += double(inp[r * C + c]) * w[o * C + c];
      EXPECT_NEAR(out[r * OC + o], ref, 1e-5);
    }
  }
}

TEST(MatmulCpu, BackwardOverwritesDinpAndAccumulatesWeights) {
  const int64_t B = 1, T = 4, C = 3, OC = 5;
  auto inp = RandomNormals(B * T * C, 4), w = RandomNormals(OC * C, 5), dout = RandomNormals(B * T * OC, 6);
  std::vector<float> dinp(B * T * C, 100.0f), dw(OC * C, 1.0f), db(OC, 2.0f);
  accounting::FlopCounter counter;
  {
    accounting::ScopedFlopCounter scope(&counter);
    matmul_backward(dinp.data(), dw.data(), db.data(), dout.data(), inp.data(), w.data(), B, T, C, OC,
                    "test.bwd");
  }
  EXPECT_EQ(counter.matmul_total(), 4.0 * B * T * C * OC);  // backward = 2x forward
  for (int64_t r = 0; r < T; ++r) {
    for (int64_t c = 0; c < C; ++c) {
      double ref = 0;
      for (int64_t o = 0; o < OC; ++o) ref += double(dout[r * OC + o]) * w[o * C + c];
      EXPECT_NEAR(dinp[r * C + c], ref, 1e-5);
    }
  }
  for (int64_t o = 0; o < OC; ++o) {
    double sb = 2.0;
    for (int64_t r = 0; r < T; ++r) sb += dout[r * OC + o];
    EXPECT_NEAR(db[o], sb, 1e-5);
    for (int64_t c = 0; c < C; ++c) {
      double ref = 1.0;
      for (int64_t r = 0; r < T; ++r) ref += double(dout[r * OC + o]) * inp[r * C + c];
      EXPECT_NEAR(dw[o * C + c], ref, 1e-5);
    }
  }
}

TEST(AttentionCpu, ForwardMatchesCausalLoopsAndCountsFullTxT) {
  const int64_t B = 2, T = 6, C = 8, NH = 2, hs = C / NH;
  auto qkv = RandomNormals(B * T * 3 * C, 7);
  std::vector<float> out(B * T * C), att(B * NH * T * T);
  accounting::FlopCounter counter;
  {
    accounting::ScopedFlopCounter scope(&counter);
    attention_forward(out.data(), att.data(), qkv.data(), B, T, C, NH);
  }
  // QK^T and AV over the full T x T: 2 * (2 * T * T * hs) per (b, h) = 4 B T^2 C.
  EXPECT_EQ(counter.matmul_total(), 4.0 * B * T * T * C);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < NH; ++h) {
      for (int64_t t = 0; t < T; ++t) {
        const float* q = qkv.data() + (b * T + t) * 3 * C + h * hs;
        std::vector<double> s(t + 1);
        double mx = -1e30, sum = 0;
        for (int64_t j = 0; j <= t; ++j) {
          const float* k = qkv.data() + (b * T + j) * 3 * C + C + h * hs;
          double d = 0;
          for (int64_t i = 0; i < hs; ++i) d += double(q[i]) * k[i];
          s[j] = d / std::sqrt(double(hs));
          mx = std::max(mx, s[j]);
        }
        for (auto& x : s) sum += (x = std::exp(x - mx));
        for (int64_t j = 0; j < T; ++j) {
          const double p = j <= t ? s[j] / sum : 0.0;
          EXPECT_NEAR(att[((b * NH + h) * T + t) * T + j], p, 1e-6);
        }
        for (int64_t i = 0; i < hs; ++i) {
          double o = 0;
          for (int64_t j = 0; j <= t; ++j) {
            o += s[j] / sum * qkv[(b * T + j) * 3 * C + 2 * C + h * hs + i];
          }
          EXPECT_NEAR(out[(b * T + t) * C + h * hs + i], o, 1e-5);
        }
      }
    }
  }
}

TEST(CrossEntropyCpu, LossAndInPlaceGradientIgnorePaddedColumns) {
  const int64_t B = 2, T = 3, V = 10, Vp = 16;
  auto logits = RandomNormals(B * T * Vp, 8, 3.0);
  for (int64_t r = 0; r < B * T; ++r) {
    for (int64_t i = V; i < Vp; ++i) logits[r * Vp + i] = 1000.0f;  // must not matter
  }
  const std::vector<int32_t> targets = {0, 9, 3, 4, 5, 1};
  std::vector<float> losses(B * T), lse(B * T);
  crossentropy_forward(losses.data(), lse.data(), logits.data(), targets.data(), B, T, V, Vp);
  const std::vector<float> saved = logits;
  const float dloss = 1.0f / (B * T);
  crossentropy_softmax_backward(logits.data(), lse.data(), targets.data(), dloss, B, T, V, Vp);
  for (int64_t r = 0; r < B * T; ++r) {
    double mx = -1e30, sum = 0;
    for (int64_t i = 0; i < V; ++i) mx = std::max(mx, double(saved[r * Vp + i]));
    for (int64_t i = 0; i < V; ++i) sum += std::exp(saved[r * Vp + i] - mx);
    const double ref_lse = mx + std::log(sum);
    EXPECT_NEAR(lse[r], ref_lse, 1e-5);
    EXPECT_NEAR(losses[r], ref_lse - saved[r * Vp + targets[r]], 1e-5);
    double gsum = 0;
    for (int64_t i = 0; i < V; ++i) {
      const double p = std::exp(saved[r * Vp + i] - ref_lse);
      EXPECT_NEAR(logits[r * Vp + i], dloss * (p - (i == targets[r])), 1e-7);
      gsum += logits[r * Vp + i];
    }
    EXPECT_NEAR(gsum, 0.0, 1e-7);  // softmax - onehot sums to zero
    for (int64_t i = V; i < Vp; ++i) EXPECT_EQ(logits[r * Vp + i], 0.0f);
  }
}

// The train step's GeLU keeps gelu'(x) in x's place for the backward: bit for bit the pair that
// computes the tanh twice, in fp32 and fp64, at a size the vector loops do not divide.
template <typename F>
void ExpectSavedGeluIsTheRecomputedOne() {
  const int64_t n = 2 * 4099 + 5;
  std::vector<F> x(n), dout(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = F(std::sin(0.011 * i) * (1 + i % 13) * 0.6);
    dout[i] = F(std::cos(0.07 * i));
  }
  std::vector<F> out_want(n), din_want(n);
  gelu_forward(out_want.data(), x.data(), n);
  gelu_backward(din_want.data(), x.data(), dout.data(), n);
  std::vector<F> out(n), x_to_grad = x, din = dout;
  gelu_forward_saving_grad(out.data(), x_to_grad.data(), n);
  gelu_backward_saved(din.data(), x_to_grad.data(), din.data(), n);  // in place, as the model calls it
  EXPECT_EQ(out, out_want);
  EXPECT_EQ(din, din_want);
}

TEST(GeluCpu, SavedDerivativeGivesTheRecomputedBackward) {
  ExpectSavedGeluIsTheRecomputedOne<float>();
  ExpectSavedGeluIsTheRecomputedOne<double>();
}

TEST(LayerNormCpu, NormalisesRows) {
  const int64_t B = 1, T = 3, C = 32;
  auto inp = RandomNormals(B * T * C, 9, 5.0);
  std::vector<float> w(C, 1.0f), b(C, 0.0f), out(B * T * C), mean(B * T), rstd(B * T);
  layernorm_forward(out.data(), mean.data(), rstd.data(), inp.data(), w.data(), b.data(), B, T, C);
  for (int64_t r = 0; r < B * T; ++r) {
    double s = 0, s2 = 0;
    for (int64_t i = 0; i < C; ++i) {
      s += out[r * C + i];
      s2 += double(out[r * C + i]) * out[r * C + i];
    }
    EXPECT_NEAR(s / C, 0.0, 1e-6);
    EXPECT_NEAR(s2 / C, 1.0, 1e-3);  // var / (var + 1e-5) with var ~ 25
  }
}

// The fused residual add + LayerNorm against the two unfused ops: the same residual stream and
// the same LayerNorm output and statistics, bit for bit, with and without a bias, in fp32 and
// fp64, over GPT-2's width and an odd one (a vector tail).
template <typename F>
void ExpectFusedMatchesUnfused(int64_t B, int64_t T, int64_t C, bool with_bias, uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "B=" << B << " T=" << T << " C=" << C << " bias=" << with_bias
                                  << " bytes=" << sizeof(F));
  auto to = [](const std::vector<float>& v) { return std::vector<F>(v.begin(), v.end()); };
  const auto a = to(RandomNormals(B * T * C, seed, 3.0)), b = to(RandomNormals(B * T * C, seed + 1));
  const auto w = to(RandomNormals(C, seed + 2)), bias = to(RandomNormals(C, seed + 3));
  const F* bp = with_bias ? bias.data() : nullptr;
  std::vector<F> res1(B * T * C), out1(B * T * C), mean1(B * T), rstd1(B * T);
  residual_forward(res1.data(), a.data(), b.data(), B * T * C);
  layernorm_forward(out1.data(), mean1.data(), rstd1.data(), res1.data(), w.data(), bp, B, T, C);
  std::vector<F> res2(B * T * C, F(-7)), out2(B * T * C, F(-7)), mean2(B * T, F(-7)), rstd2(B * T, F(-7));
  residual_layernorm_forward(res2.data(), out2.data(), mean2.data(), rstd2.data(), a.data(), b.data(), w.data(),
                             bp, B, T, C);
  for (int64_t i = 0; i < B * T * C; ++i) {
    ASSERT_EQ(res2[i], res1[i]) << "residual at " << i;
    ASSERT_EQ(out2[i], out1[i]) << "layernorm output at " << i;
  }
  for (int64_t r = 0; r < B * T; ++r) {
    ASSERT_EQ(mean2[r], mean1[r]) << "mean at row " << r;
    ASSERT_EQ(rstd2[r], rstd1[r]) << "rstd at row " << r;
  }
}

// fp32 attention on oneDNN runs each product for every (batch, head) as one batched primitive;
// on OpenBLAS one GEMM per (batch, head). Both, forward and backward, against the fp64 per-head
// reference (the one the gradient check verifies), at a GPT-2-like head size and an odd one.
void ExpectBatchedAttentionMatches(int64_t B, int64_t T, int64_t C, int64_t NH, uint64_t seed) {
  SCOPED_TRACE(testing::Message() << "B=" << B << " T=" << T << " C=" << C << " NH=" << NH);
  const auto inp = RandomNormals(B * T * 3 * C, seed), dout = RandomNormals(B * T * C, seed + 1);
  const std::vector<double> inp64(inp.begin(), inp.end()), dout64(dout.begin(), dout.end());
  std::vector<double> out64(B * T * C), att64(B * NH * T * T), dinp64(B * T * 3 * C), datt64(B * NH * T * T);
  attention_forward(out64.data(), att64.data(), inp64.data(), B, T, C, NH);
  attention_backward(dinp64.data(), datt64.data(), dout64.data(), inp64.data(), att64.data(), B, T, C, NH);
  for (CpuGemmBackend backend : {CpuGemmBackend::kOneDnn, CpuGemmBackend::kOpenBlas}) {
    SCOPED_TRACE(CpuGemmBackendName(backend));
    ScopedCpuGemmBackend scope(backend);
    std::vector<float> out(B * T * C, -7.0f), att(B * NH * T * T, -7.0f), dinp(B * T * 3 * C, -7.0f),
        datt(B * NH * T * T, -7.0f);
    attention_forward(out.data(), att.data(), inp.data(), B, T, C, NH);
    attention_backward(dinp.data(), datt.data(), dout.data(), inp.data(), att.data(), B, T, C, NH);
    for (size_t i = 0; i < out.size(); ++i) ASSERT_NEAR(out[i], out64[i], 2e-5 * (1 + std::fabs(out64[i]))) << i;
    for (size_t i = 0; i < att.size(); ++i) ASSERT_NEAR(att[i], att64[i], 2e-6) << i;
    for (size_t i = 0; i < dinp.size(); ++i) {
      ASSERT_NEAR(dinp[i], dinp64[i], 5e-5 * (1 + std::fabs(dinp64[i]))) << "dinp at " << i;
    }
    for (size_t i = 0; i < datt.size(); ++i) ASSERT_NEAR(datt[i], datt64[i], 5e-5 * (1 + std::fabs(datt64[i]))) << i;
  }
}

TEST(AttentionCpu, BatchedAndPerHeadProductsMatchTheReference) {
  ExpectBatchedAttentionMatches(2, 16, 128, 2, 80);  // head size 64
  ExpectBatchedAttentionMatches(3, 7, 30, 3, 90);    // head size 10, odd T
}

TEST(LayerNormCpu, FusedResidualLayerNormIsTheUnfusedPairBitForBit) {
  ExpectFusedMatchesUnfused<float>(2, 16, 768, true, 40);
  ExpectFusedMatchesUnfused<float>(3, 5, 37, false, 50);
  ExpectFusedMatchesUnfused<double>(2, 7, 768, true, 60);
  ExpectFusedMatchesUnfused<double>(1, 3, 13, false, 70);
}

}  // namespace
}  // namespace model
