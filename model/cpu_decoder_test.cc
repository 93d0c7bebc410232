// KV-cache decoding on the CPU against the training model's full forward: the logits at every
// step with the cache equal a full forward over the prefix (fp32 tolerance), on both GEMM
// backends, for several streams; greedy generation agrees; misuse is refused with the value.
#include "model/cpu_decoder.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "model/attention_cpu.h"
#include "model/bf16.h"
#include "model/cpu_gemm_backend.h"
#include "model/cpu_gpt.h"
#include "model/data/rng.h"
#include "model/full_forward_logits.h"
#include "model/kv_attention_cpu.h"
#include "model/matmul_cpu.h"
#include "model/matvec_cpu.h"
#include "model/onednn_gemm.h"
#include "model/param_init.h"

namespace model {
namespace {

std::vector<int32_t> RandomTokens(int n, int vocab, uint64_t seed) {
  std::vector<int32_t> t(n);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int& x : t) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    x = static_cast<int32_t>(s % static_cast<uint64_t>(vocab));
  }
  return t;
}

// max |a - b| / max |b| over the real vocabulary of every stream.
double MaxRelErr(const float* got, const std::vector<float>& want, int B, const GptConfig& c) {
  double diff = 0, scale = 1e-30;
  for (int b = 0; b < B; ++b) {
    for (int v = 0; v < c.vocab; ++v) {
      const size_t i = static_cast<size_t>(b) * c.padded_vocab + v;
      diff = std::max(diff, std::fabs(static_cast<double>(got[i]) - want[i]));
      scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
    }
  }
  return diff / scale;
}

struct Case {
  const char* preset;
  int B, P, G;
  CpuGemmBackend backend;
};

class DecoderVsFullForward : public ::testing::TestWithParam<Case> {};

TEST_P(DecoderVsFullForward, LogitsAtEveryStepEqualAFullForwardOverThePrefix) {
  const Case k = GetParam();
  ScopedCpuGemmBackend backend(k.backend);
  const GptConfig config = *GptPreset(k.preset);
  const ParamLayout layout(config);
  std::vector<float> params(layout.num_params());
  InitParams(config, layout, 7, params.data());
  const int B = k.B, P = k.P, G = k.G, T = P + G;
  // Each stream's whole sequence (B, T): the prompt, then the tokens fed at each step.
  const std::vector<int32_t> seq = RandomTokens(B * T, config.vocab, 11);
  auto prefix = [&](int t) {
    std::vector<int32_t> out;
    for (int b = 0; b < B; ++b) out.insert(out.end(), seq.begin() + b * T, seq.begin() + b * T + t);
    return out;
  };

  auto d = CpuDecoder::Create(config, params.data(), B, P, T);
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_TRUE((*d)->Prefill(prefix(P), P).ok());
  EXPECT_EQ((*d)->position(), P);
  double worst = MaxRelErr((*d)->logits(), FullForwardLastLogits(config, params, prefix(P), B, P), B, config);
  EXPECT_LT(worst, 2e-5) << "after the prompt of " << P;
  for (int t = P; t < T; ++t) {
    std::vector<int32_t> next(B);
    for (int b = 0; b < B; ++b) next[b] = seq[b * T + t];
    ASSERT_TRUE((*d)->Step(next).ok());
    ASSERT_EQ((*d)->position(), t + 1);
    const double err =
        MaxRelErr((*d)->logits(), FullForwardLastLogits(config, params, prefix(t + 1), B, t + 1), B, config);
    EXPECT_LT(err, 2e-5) << "step at position " << t;
    worst = std::max(worst, err);
  }
  // The test compares something: the logits are not all equal or zero.
  const float* l = (*d)->logits();
  EXPECT_GT(*std::max_element(l, l + config.vocab) - *std::min_element(l, l + config.vocab), 1e-3f);
  std::printf("%s B=%d P=%d G=%d %s: worst relative error %.3g\n", k.preset, B, P, G,
              CpuGemmBackendName(k.backend).c_str(), worst);
}

INSTANTIATE_TEST_SUITE_P(
    Presets, DecoderVsFullForward,
    ::testing::Values(Case{"test-tiny", 1, 1, 15, CpuGemmBackend::kOneDnn},
                      Case{"test-tiny", 3, 5, 11, CpuGemmBackend::kOneDnn},
                      Case{"test-tiny", 2, 4, 8, CpuGemmBackend::kOpenBlas},
                      Case{"test-mini", 2, 16, 6, CpuGemmBackend::kOneDnn},
                      Case{"test-mini", 1, 7, 4, CpuGemmBackend::kOpenBlas},
                      // 10 streams: the steps' Linear layers take the GEMM, not the matvec.
                      Case{"test-tiny", 10, 2, 5, CpuGemmBackend::kOneDnn}));

// bf16 weights: the decoder's logits equal a full fp32 forward over the same weights rounded to
// bf16 (the only difference then: the prompt GEMMs' bf16 inputs, far smaller than the rounding of
// the weights), and stay within bf16's precision of the fp32 weights' logits. Steps and the
// prompt both checked; 10 streams send the steps' Linear layers to the bf16 GEMM too.
TEST(CpuDecoder, Bf16WeightsMatchAForwardOverTheRoundedWeights) {
  if (!OneDnnBf16Implementation().ok()) {
    auto d = CpuDecoder::Create(*GptPreset("test-tiny"), std::vector<float>(1, 0).data(), 1, 1, 2, true);
    EXPECT_FALSE(d.ok());
    GTEST_SKIP() << "oneDNN runs no bf16 here: " << OneDnnBf16Implementation().status();
  }
  for (const int B : {2, 10}) {
    SCOPED_TRACE(B);
    const GptConfig config = *GptPreset("test-mini");
    const ParamLayout layout(config);
    std::vector<float> params(layout.num_params());
    InitParams(config, layout, 7, params.data());
    std::vector<float> rounded(params.size());
    for (size_t i = 0; i < params.size(); ++i) rounded[i] = Bf16ToFloat(FloatToBf16(params[i]));
    const int P = 6, G = 4, T = P + G;
    const std::vector<int32_t> seq = RandomTokens(B * T, config.vocab, 13);
    auto prefix = [&](int t) {
      std::vector<int32_t> out;
      for (int b = 0; b < B; ++b) out.insert(out.end(), seq.begin() + b * T, seq.begin() + b * T + t);
      return out;
    };
    auto d = CpuDecoder::Create(config, params.data(), B, P, T, /*bf16_weights=*/true);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_TRUE((*d)->bf16_weights());
    ASSERT_TRUE((*d)->Prefill(prefix(P), P).ok());
    double worst_rounded = 0, worst_fp32 = 0;
    for (int t = P; t <= T; ++t) {
      if (t > P) {
        std::vector<int32_t> next(B);
        for (int b = 0; b < B; ++b) next[b] = seq[b * T + t - 1];
        ASSERT_TRUE((*d)->Step(next).ok());
      }
      worst_rounded = std::max(worst_rounded, MaxRelErr((*d)->logits(),
                                                        FullForwardLastLogits(config, rounded, prefix(t), B, t), B,
                                                        config));
      worst_fp32 = std::max(worst_fp32, MaxRelErr((*d)->logits(),
                                                  FullForwardLastLogits(config, params, prefix(t), B, t), B, config));
    }
    EXPECT_LT(worst_rounded, 1e-2) << "against the forward over the bf16-rounded weights";
    EXPECT_LT(worst_fp32, 3e-2) << "against the fp32 weights";
    EXPECT_GT(worst_fp32, 0) << "bf16 weights gave the fp32 logits exactly: no bf16 was used";
    std::printf("bf16 decoder B=%d: worst relative error %.3g vs rounded weights, %.3g vs fp32\n", B,
                worst_rounded, worst_fp32);
  }
}

TEST(CpuDecoder, KvAttentionOverAFreshCacheEqualsTheTrainingAttention) {
  const int64_t B = 2, T = 9, C = 32, NH = 4, maxT = 12;
  std::vector<float> qkv(B * T * 3 * C);
  Rng rng(3);
  for (float& v : qkv) v = static_cast<float>(rng.Normal());
  std::vector<float> want(B * T * C), att(B * NH * T * T), got(B * T * C), scores(B * NH * maxT);
  attention_forward(want.data(), att.data(), qkv.data(), B, T, C, NH);
  std::vector<float> kc(B * NH * maxT * (C / NH)), vc(kc.size());
  kv_cache_write(kc.data(), vc.data(), qkv.data(), B, T, C, NH, maxT, 0);
  kv_attention_forward(got.data(), scores.data(), qkv.data(), kc.data(), vc.data(), B, T, C, NH, maxT, 0);
  double diff = 0;
  for (size_t i = 0; i < got.size(); ++i)
    diff = std::max(diff, std::fabs(static_cast<double>(got[i]) - want[i]));
  EXPECT_LT(diff, 1e-5);
}

TEST(CpuDecoder, MatvecEqualsTheGemmLinearForEveryRowCount) {
  // Odd sizes: a tail of output rows past the 64-row blocks, a length not a multiple of 16.
  const int64_t C = 77, OC = 131;
  Rng rng(9);
  std::vector<float> w(OC * C), bias(OC), x(kMatvecMaxRows * C);
  for (float& v : w) v = static_cast<float>(rng.Normal());
  for (float& v : bias) v = static_cast<float>(rng.Normal());
  for (float& v : x) v = static_cast<float>(rng.Normal());
  for (int64_t M = 1; M <= kMatvecMaxRows; ++M) {
    for (const float* b : {static_cast<const float*>(bias.data()), static_cast<const float*>(nullptr)}) {
      std::vector<float> want(M * OC), got(M * OC, -1.0f);
      matmul_forward(want.data(), x.data(), w.data(), b, 1, M, C, OC);
      matvec_forward(got.data(), x.data(), w.data(), b, M, C, OC);
      double diff = 0;
      for (size_t i = 0; i < got.size(); ++i)
        diff = std::max(diff, std::fabs(static_cast<double>(got[i]) - want[i]));
      EXPECT_LT(diff, 1e-4) << "M=" << M << (b ? " with" : " without") << " bias";
    }
  }
}

TEST(CpuDecoder, GreedyGenerationMatchesTheFullForward) {
  const GptConfig config = *GptPreset("test-tiny");
  const ParamLayout layout(config);
  std::vector<float> params(layout.num_params());
  InitParams(config, layout, 5, params.data());
  std::vector<int32_t> seq = RandomTokens(3, config.vocab, 2);  // the prompt
  auto d = CpuDecoder::Create(config, params.data(), 1, 3, config.block);
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE((*d)->Prefill(seq, 3).ok());
  std::vector<int32_t> next;
  while (static_cast<int>(seq.size()) < config.block) {
    ASSERT_TRUE((*d)->Greedy(&next).ok());
    // The full forward's arg max over the same prefix.
    std::vector<float> full = FullForwardLastLogits(config, params, seq, 1, static_cast<int>(seq.size()));
    const int want =
        static_cast<int>(std::max_element(full.begin(), full.begin() + config.vocab) - full.begin());
    ASSERT_EQ(next[0], want) << "at length " << seq.size();
    seq.push_back(next[0]);
    ASSERT_TRUE((*d)->Step(next).ok());
  }
  EXPECT_EQ((*d)->position(), config.block);
}

TEST(CpuDecoder, MisuseIsRefusedNamingTheValue) {
  const GptConfig config = *GptPreset("test-tiny");
  const ParamLayout layout(config);
  std::vector<float> params(layout.num_params(), 0.01f);
  auto has = [](const absl::Status& s, const char* text) {
    return std::string(s.message()).find(text) != std::string::npos;
  };
  EXPECT_TRUE(has(CpuDecoder::Create(config, params.data(), 0, 4, 8).status(), "B=0"));
  EXPECT_TRUE(has(CpuDecoder::Create(config, params.data(), 1, 4, 17).status(), "max_positions=17"));
  EXPECT_TRUE(has(CpuDecoder::Create(config, params.data(), 1, 9, 8).status(), "max_prompt=9"));
  EXPECT_FALSE(CpuDecoder::Create(config, nullptr, 1, 4, 8).ok());
  auto d = CpuDecoder::Create(config, params.data(), 2, 4, 6);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(has((*d)->Prefill({1, 2, 3}, 2), "3 tokens given, 4 expected"));
  EXPECT_TRUE(has((*d)->Prefill({1, 2, 3, 60}, 2), "token 60 at index 3"));
  EXPECT_TRUE(has((*d)->Prefill({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5), "prompt of 5 tokens"));
  ASSERT_TRUE((*d)->Prefill({1, 2, 3, 4, 5, 6, 7, 8}, 4).ok());
  EXPECT_TRUE(has((*d)->Prefill({1, 2, 3, 4}, 2), "Reset first"));
  ASSERT_TRUE((*d)->Step({1, 2}).ok());
  ASSERT_TRUE((*d)->Step({1, 2}).ok());
  absl::Status full = (*d)->Step({1, 2});
  EXPECT_EQ(full.code(), absl::StatusCode::kOutOfRange);
  EXPECT_TRUE(has(full, "6 of 6 positions"));
  (*d)->Reset();
  EXPECT_TRUE((*d)->Prefill({1, 2, 3, 4}, 2).ok());
}

}  // namespace
}  // namespace model
