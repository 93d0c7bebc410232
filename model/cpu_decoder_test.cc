// KV-cache decoding on the CPU against the training model's full forward: the logits at every
// step with the cache equal a full forward over the prefix (fp32 tolerance), on both GEMM
// backends, for several streams, for GPT-2's family and the Llama family (llama-tiny: RMSNorm,
// RoPE at each new position, SwiGLU, 2 K/V heads for 4 query heads, untied head); the cache holds
// the K/V heads only and the memory estimate counts it so; greedy generation agrees; misuse is
// refused with the value.
#include "model/cpu_decoder.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "model/attention_cpu.h"
#include "model/bf16.h"
#include "model/cpu_gemm_backend.h"
#include "model/cpu_gpt.h"
#include "model/data/rng.h"
#include "model/decoder_test_util.h"
#include "model/full_forward_logits.h"
#include "model/gpt_memory.h"
#include "model/kv_attention_cpu.h"
#include "model/matmul_cpu.h"
#include "model/matvec_cpu.h"
#include "model/onednn_gemm.h"
#include "model/rounded_weights.h"

namespace model {
namespace {

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
  const std::vector<float> params = DecoderTestParams(config, 7);
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
  double worst = MaxRelErr((*d)->logits(), FullForwardLastLogits(config, params, prefix(P), B, P).data(), B, config);
  EXPECT_LT(worst, 2e-5) << "after the prompt of " << P;
  for (int t = P; t < T; ++t) {
    std::vector<int32_t> next(B);
    for (int b = 0; b < B; ++b) next[b] = seq[b * T + t];
    ASSERT_TRUE((*d)->Step(next).ok());
    ASSERT_EQ((*d)->position(), t + 1);
    const double err =
        MaxRelErr((*d)->logits(), FullForwardLastLogits(config, params, prefix(t + 1), B, t + 1).data(), B,
                  config);
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
                      // The steps' attention on one thread up to position 126, then on every
                      // thread (cpu_decoder.cc SerialAttention: 2 streams x 128 keys x K and V
                      // of width 128 reach 256 KiB).
                      Case{"test-mini", 2, 120, 10, CpuGemmBackend::kOneDnn},
                      // 10 streams: the steps' Linear layers take the GEMM, not the matvec.
                      Case{"test-tiny", 10, 2, 5, CpuGemmBackend::kOneDnn},
                      // The Llama family: one token of prompt, then every position of the block
                      // by steps; longer prompts; OpenBLAS; the GEMM for a step's 10 rows.
                      Case{"llama-tiny", 1, 1, 15, CpuGemmBackend::kOneDnn},
                      Case{"llama-tiny", 3, 5, 11, CpuGemmBackend::kOneDnn},
                      Case{"llama-tiny", 2, 9, 7, CpuGemmBackend::kOpenBlas},
                      Case{"llama-tiny", 10, 2, 5, CpuGemmBackend::kOneDnn}));

// bf16 weights: the decoder's logits against a full fp32 forward over the same weights rounded to
// bf16, and against the fp32 weights' logits, after the prompt and at every step; 10 streams send
// the steps' Linear layers to the GEMM too; GPT-2's family and the Llama family.
// - fp32 prompt math (the prompt's tiles widened to fp32, any CPU): the same model as the rounded
//   weights' up to fp32 rounding, so within the fp32 tolerance of DecoderVsFullForward.
// - bf16 prompt math (oneDNN's bf16 GEMM: its inputs rounded to bf16 too): within bf16's
//   precision. Skipped, with the reason, where oneDNN runs no bf16 (no AVX-512), after checking
//   that the decoder refuses it there.
void ExpectBf16DecoderNear(PromptMath math, double tol_rounded) {
  // B=1: the steps' one-row bf16 matvec (its even/odd pairs); 2: several rows; 10: the GEMM.
  for (const auto& [preset, B] : {std::pair{"test-mini", 1}, std::pair{"test-mini", 2}, std::pair{"test-mini", 10},
                                  std::pair{"llama-tiny", 1}, std::pair{"llama-tiny", 2},
                                  std::pair{"llama-tiny", 10}}) {
    SCOPED_TRACE(absl::StrCat(preset, " B=", B));
    const GptConfig config = *GptPreset(preset);
    std::vector<float> params = DecoderTestParams(config, 7);
    // A tied wte is both the embedding (read in fp32) and the LM head (read in bf16): put on the
    // bf16 grid first, so that both models embed the same values.
    float* wte = PointParams(ParamLayout(config), params.data()).wte;
    for (int64_t i = 0; i < config.padded_vocab * config.width; ++i) wte[i] = Bf16ToFloat(FloatToBf16(wte[i]));
    // Only the Linear weights are read in bf16 (the norms, biases, embeddings stay fp32).
    const std::vector<float> rounded = *RoundLinearWeights(config, params.data(), WeightFormat::kBf16);
    const int P = 6, G = 4, T = P + G;
    const std::vector<int32_t> seq = RandomTokens(B * T, config.vocab, 13);
    auto prefix = [&](int t) {
      std::vector<int32_t> out;
      for (int b = 0; b < B; ++b) out.insert(out.end(), seq.begin() + b * T, seq.begin() + b * T + t);
      return out;
    };
    auto d = CpuDecoder::Create(config, params.data(), B, P, T, WeightFormat::kBf16, math);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ((*d)->weights(), WeightFormat::kBf16);
    EXPECT_EQ((*d)->prompt_math(), math);
    ASSERT_TRUE((*d)->Prefill(prefix(P), P).ok());
    double worst_rounded = 0, worst_fp32 = 0;
    for (int t = P; t <= T; ++t) {
      if (t > P) {
        std::vector<int32_t> next(B);
        for (int b = 0; b < B; ++b) next[b] = seq[b * T + t - 1];
        ASSERT_TRUE((*d)->Step(next).ok());
      }
      const double e = MaxRelErr((*d)->logits(), FullForwardLastLogits(config, rounded, prefix(t), B, t).data(), B,
                                 config);
      EXPECT_LT(e, tol_rounded) << "against the forward over the bf16-rounded weights at position " << t;
      worst_rounded = std::max(worst_rounded, e);
      worst_fp32 = std::max(worst_fp32, MaxRelErr((*d)->logits(),
                                                  FullForwardLastLogits(config, params, prefix(t), B, t).data(), B,
                                                  config));
    }
    EXPECT_LT(worst_fp32, 3e-2) << "against the fp32 weights";
    // The bf16 copy is what ran: with fp32 math the weights' rounding is the only difference from
    // fp32, far above fp32 rounding; with bf16 math the rounded inputs add their own, of the same
    // order, so there the logits need only differ from fp32's.
    if (math == PromptMath::kFp32) {
      EXPECT_GT(worst_fp32, 10 * worst_rounded) << "bf16 weights gave about the fp32 weights' logits: no bf16 was used";
    } else {
      EXPECT_GT(worst_fp32, 0) << "bf16 weights gave the fp32 weights' logits exactly: no bf16 was used";
    }
    std::printf("bf16 decoder (%s prompt math) %s B=%d: worst relative error %.3g vs rounded weights, %.3g vs fp32\n",
                math == PromptMath::kFp32 ? "fp32" : "bf16", preset, B, worst_rounded, worst_fp32);
  }
}

TEST(CpuDecoder, Bf16WeightsWithFp32MathEqualAForwardOverTheRoundedWeights) {
  ExpectBf16DecoderNear(PromptMath::kFp32, 2e-5);
}

TEST(CpuDecoder, Bf16WeightsWithBf16MathMatchAForwardOverTheRoundedWeights) {
  if (!OneDnnBf16Implementation().ok()) {
    const std::vector<float> params = DecoderTestParams(*GptPreset("test-tiny"), 7);
    auto d = CpuDecoder::Create(*GptPreset("test-tiny"), params.data(), 1, 1, 2, WeightFormat::kBf16,
                                PromptMath::kBf16);
    EXPECT_FALSE(d.ok());
    GTEST_SKIP() << "oneDNN runs no bf16 here: " << OneDnnBf16Implementation().status();
  }
  ExpectBf16DecoderNear(PromptMath::kBf16, 1e-2);
}

TEST(CpuDecoder, KvAttentionOverAFreshCacheEqualsTheTrainingAttention) {
  // Multi-head (NKV = NH), grouped-query (2 query heads per K/V head) and multi-query (one K/V head).
  for (const int64_t NKV : {4, 2, 1}) {
    SCOPED_TRACE(NKV);
    const int64_t B = 2, T = 9, C = 32, NH = 4, maxT = 12, hs = C / NH, QKV = C + 2 * NKV * hs;
    std::vector<float> qkv(B * T * QKV);
    Rng rng(3);
    for (float& v : qkv) v = static_cast<float>(rng.Normal());
    std::vector<float> want(B * T * C), att(B * NH * T * T), got(B * T * C), scores(B * NH * maxT);
    attention_forward(want.data(), att.data(), qkv.data(), B, T, C, NH, NKV);
    // The cache of NKV heads: its positions past T stay unwritten (NaN) and unread.
    std::vector<float> kc(B * NKV * maxT * hs, NAN), vc(kc.size(), NAN);
    kv_cache_write(kc.data(), vc.data(), qkv.data(), B, T, C, NH, maxT, 0, NKV);
    kv_attention_forward(got.data(), scores.data(), qkv.data(), kc.data(), vc.data(), B, T, C, NH, maxT, 0,
                         NKV);
    double diff = 0;
    for (size_t i = 0; i < got.size(); ++i)
      diff = std::max(diff, std::fabs(static_cast<double>(got[i]) - want[i]));
    EXPECT_LT(diff, 1e-5);
    // The last 4 queries alone at positions 5 .. 8 (as steps after a prompt of 5) over that cache.
    const int64_t first = 5, n = T - first;
    std::vector<float> tail(B * n * QKV), got_tail(B * n * C);
    for (int64_t b = 0; b < B; ++b) {
      std::copy(qkv.begin() + (b * T + first) * QKV, qkv.begin() + (b * T + T) * QKV,
                tail.begin() + b * n * QKV);
    }
    kv_attention_forward(got_tail.data(), scores.data(), tail.data(), kc.data(), vc.data(), B, n, C, NH, maxT,
                         first, NKV);
    double tail_diff = 0;
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t i = 0; i < n * C; ++i) {
        tail_diff = std::max(tail_diff, std::fabs(static_cast<double>(got_tail[b * n * C + i]) -
                                                  want[(b * T + first) * C + i]));
      }
    }
    EXPECT_LT(tail_diff, 1e-5);
    // Each K/V head's keys went to its own block: head kv's key at position t is qkv's k part.
    for (int64_t b = 0; b < B; ++b) {
      for (int64_t kv = 0; kv < NKV; ++kv) {
        for (int64_t t = 0; t < T; ++t) {
          const float* want_k = qkv.data() + (b * T + t) * QKV + C + kv * hs;
          const float* want_v = want_k + NKV * hs;
          const float* k = kc.data() + ((b * NKV + kv) * maxT + t) * hs;
          const float* v = vc.data() + ((b * NKV + kv) * maxT + t) * hs;
          ASSERT_TRUE(std::equal(k, k + hs, want_k) && std::equal(v, v + hs, want_v))
              << "b=" << b << " kv=" << kv << " t=" << t;
        }
      }
    }
  }
}

// The cache holds the K/V heads only: llama-tiny (4 query heads, 2 K/V heads of 8) keeps
// 2 * L * B * positions * 2 * 8 floats, half a multi-head cache, and EstimateDecodeMemory counts
// exactly that, with the activations of its F-wide MLP (worked here by hand from the shape).
TEST(CpuDecoder, GroupedQueryCacheHoldsTheKvHeadsOnlyAndTheEstimateCountsIt) {
  const GptConfig llama = *GptPreset("llama-tiny");
  ASSERT_EQ(llama.heads, 4);
  ASSERT_EQ(llama.kv_head_count(), 2);
  const std::vector<float> params = DecoderTestParams(llama, 3);
  const int B = 2, P = 5, positions = 12;
  auto d = CpuDecoder::Create(llama, params.data(), B, P, positions);
  ASSERT_TRUE(d.ok()) << d.status();
  const int64_t L = 2, KV = 2, hd = 8;
  EXPECT_EQ((*d)->cache_bytes(), 2 * L * B * positions * KV * hd * 4);
  GptConfig multi_head = llama;
  multi_head.kv_heads = 0;  // 4 K/V heads
  std::vector<float> mh_params(ParamLayout(multi_head).num_params(), 0.01f);
  auto mh = CpuDecoder::Create(multi_head, mh_params.data(), B, P, positions);
  ASSERT_TRUE(mh.ok()) << mh.status();
  EXPECT_EQ((*mh)->cache_bytes(), 2 * (*d)->cache_bytes());

  const DecodeMemoryEstimate m = EstimateDecodeMemory(llama, B, P, positions);
  EXPECT_EQ(m.kv_cache_bytes, (*d)->cache_bytes());
  // wte 64x32, per layer ln1 32, qkv 64x32, attproj 32x32, ln2 32, fc 128x32, fcproj 32x64; lnf
  // 32, lm_head 64x32.
  EXPECT_EQ(m.weights_bytes, 4 * (2048 + 2 * (32 + 2048 + 1024 + 32 + 4096 + 2048) + 32 + 2048));
  EXPECT_EQ(m.logits_bytes, 4 * B * 64);
  // Per prompt row: x, ln, atty, proj 4 x 32, qkv 64, fch 128 (gate | up), fch_gelu 64, mean and
  // rstd 2; the prompt's attention 4 x 5 x 5 and the scores 4 x 12 per stream, the last rows 2 x
  // 32, RoPE's tables 12 x 8.
  EXPECT_EQ(m.activations_bytes,
            4 * (B * P * (128 + 64 + 128 + 64 + 2) + B * 4 * 25 + B * 4 * 12 + B * 32 + 96));
}

// The narrow copies a decoder allocates are what NarrowBytes counts, for every format and prompt
// math, GPT-2's family and the Llama family; bf16's is half the fp32 weights, with bf16 math a
// bf16 prompt input of the widest Linear input (F = 64 for llama-tiny) a row.
TEST(CpuDecoder, NarrowBytesCountWhatTheDecoderAllocates) {
  for (const char* preset : {"test-mini", "llama-tiny"}) {
    const GptConfig config = *GptPreset(preset);
    const std::vector<float> params = DecoderTestParams(config, 3);
    const int B = 2, P = 5, positions = 12;
    for (WeightFormat w : {WeightFormat::kFp32, WeightFormat::kBf16, WeightFormat::kInt8}) {
      SCOPED_TRACE(absl::StrCat(preset, " ", WeightFormatName(w)));
      auto d = CpuDecoder::Create(config, params.data(), B, P, positions, w);
      ASSERT_TRUE(d.ok()) << d.status();
      EXPECT_EQ((*d)->narrow_bytes(), CpuDecoder::NarrowBytes(config, B, P, w, PromptMath::kFp32));
      if (w == WeightFormat::kFp32) EXPECT_EQ((*d)->narrow_bytes(), 0);
      if (w != WeightFormat::kFp32) EXPECT_GT((*d)->narrow_bytes(), 0);
    }
  }
  const GptConfig llama = *GptPreset("llama-tiny");
  const int64_t n = ParamLayout(llama).num_params();
  EXPECT_EQ(CpuDecoder::NarrowBytes(llama, 2, 5, WeightFormat::kBf16, PromptMath::kBf16), 2 * n + 2 * 2 * 5 * 64);
  if (OneDnnBf16Implementation().ok()) {
    const std::vector<float> params = DecoderTestParams(llama, 3);
    auto d = CpuDecoder::Create(llama, params.data(), 2, 5, 12, WeightFormat::kBf16, PromptMath::kBf16);
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_EQ((*d)->narrow_bytes(), 2 * n + 2 * 2 * 5 * 64);
  }
}

TEST(CpuDecoder, MatvecEqualsTheGemmLinearForEveryRowCount) {
  // Odd sizes: a tail of output rows past the groups (rows a quarter of a thread's share apart,
  // then single rows), lengths with and without a tail past the vector width (and past bf16's
  // pairs of vectors at one row), and one shorter than a vector. The bf16 form against the fp32
  // one over the bf16-rounded weights.
  for (const auto& [C, OC] : {std::pair<int64_t, int64_t>{77, 131}, {64, 200}, {5, 67}}) {
    Rng rng(9);
    std::vector<float> w(OC * C), bias(OC), x(kMatvecMaxRows * C), rounded(OC * C);
    std::vector<uint16_t> w_bf16(OC * C);
    for (float& v : w) v = static_cast<float>(rng.Normal());
    for (float& v : bias) v = static_cast<float>(rng.Normal());
    for (float& v : x) v = static_cast<float>(rng.Normal());
    for (int64_t i = 0; i < OC * C; ++i) {
      w_bf16[i] = FloatToBf16(w[i]);
      rounded[i] = Bf16ToFloat(w_bf16[i]);
    }
    for (int64_t M = 1; M <= kMatvecMaxRows; ++M) {
      for (const float* b : {static_cast<const float*>(bias.data()), static_cast<const float*>(nullptr)}) {
        SCOPED_TRACE(absl::StrCat("C=", C, " OC=", OC, " M=", M, b ? " with" : " without", " bias"));
        std::vector<float> want(M * OC), got(M * OC, -1.0f), want_bf16(M * OC), got_bf16(M * OC, -1.0f);
        matmul_forward(want.data(), x.data(), w.data(), b, 1, M, C, OC);
        matvec_forward(got.data(), x.data(), w.data(), b, M, C, OC);
        matmul_forward(want_bf16.data(), x.data(), rounded.data(), b, 1, M, C, OC);
        matvec_forward_bf16(got_bf16.data(), x.data(), w_bf16.data(), b, M, C, OC);
        double diff = 0, diff_bf16 = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          diff = std::max(diff, std::fabs(static_cast<double>(got[i]) - want[i]));
          diff_bf16 = std::max(diff_bf16, std::fabs(static_cast<double>(got_bf16[i]) - want_bf16[i]));
        }
        EXPECT_LT(diff, 1e-4);
        EXPECT_LT(diff_bf16, 1e-4);
      }
    }
  }
}

class GreedyGeneration : public ::testing::TestWithParam<const char*> {};

TEST_P(GreedyGeneration, MatchesTheFullForward) {
  const GptConfig config = *GptPreset(GetParam());
  const std::vector<float> params = DecoderTestParams(config, 5);
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

INSTANTIATE_TEST_SUITE_P(Presets, GreedyGeneration, ::testing::Values("test-tiny", "llama-tiny"));

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
  EXPECT_TRUE(has(CpuDecoder::Create(config, params.data(), 1, 4, 8, WeightFormat::kInt8, PromptMath::kBf16).status(),
                  "bf16 prompt math with int8 weights"));
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
