// MeasureAgreement and MeasurePerplexity on CPU decoders of test-mini (GPT-2) and llama-tiny:
//  - an identical candidate (its own copy of the same parameters): 100% agreement, no logit
//    difference, the same perplexity to the bit, and the reference's tokens are its greedy ones;
//  - perturbed candidates (the Linear weights through int8 per row, or bf16, in fp32 storage:
//    rounded_weights.h): a logit difference > 0 and agreement below 100%, and every flip at a
//    step whose margin is within twice that step's difference (a flip needs that much);
//  - perplexity against a hand computation: each next token's log-softmax from the training
//    model's full forward over the window's prefix, over three windows of a stream longer than
//    the decoder's positions;
//  - the fp64 helpers (log-likelihood, margin) on hand-checked rows, and bad arguments.
#include "model/decode_accuracy.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/cpu_decoder.h"
#include "model/data/rng.h"
#include "model/full_forward_logits.h"
#include "model/param_init.h"
#include "model/param_layout.h"
#include "model/rounded_weights.h"
#include "model/threads.h"

namespace model {
namespace {

const bool kOneThread = [] {
  SetNumThreads(1);  // a loaded 2-core machine: no OpenMP barriers to wait on
  return true;
}();

std::vector<float> Params(const GptConfig& c, uint64_t seed) {
  const ParamLayout layout(c);
  std::vector<float> p(static_cast<size_t>(layout.num_params()));
  InitParams(c, layout, seed, p.data());
  return p;
}

std::vector<int32_t> Tokens(int64_t n, int vocab, uint64_t seed) {
  Rng rng(seed);
  std::vector<int32_t> t(static_cast<size_t>(n));
  for (int32_t& x : t) x = static_cast<int32_t>(rng.UniformInt(static_cast<uint64_t>(vocab)));
  return t;
}

// The Linear weights of `params` through a symmetric per-row quantiser of `levels` steps a side.
std::vector<float> RoundTripRows(const GptConfig& c, std::vector<float> params, int levels) {
  for (const LinearMatrix& m : LinearMatrices(c)) {
    for (int64_t row = 0; row < m.rows; ++row) {
      float* w = params.data() + m.offset + row * m.cols;
      float amax = 0;
      for (int64_t j = 0; j < m.cols; ++j) amax = std::fmax(amax, std::fabs(w[j]));
      const float s = amax / static_cast<float>(levels);
      for (int64_t j = 0; j < m.cols; ++j) w[j] = s == 0 ? 0.0f : std::nearbyint(w[j] / s) * s;
    }
  }
  return params;
}

std::unique_ptr<CpuDecoder> Decoder(const GptConfig& c, const std::vector<float>& params, int B, int P,
                                    int positions) {
  auto d = CpuDecoder::Create(c, params.data(), B, P, positions);
  EXPECT_TRUE(d.ok()) << d.status();
  return std::move(*d);
}

struct AgreementSetup {
  const char* preset;
  int B, P, G;
};

// test-mini: 4 prompts x 24 generated tokens; llama-tiny (block 16): 3 x 8.
const AgreementSetup kSetups[] = {{"test-mini", 4, 6, 24}, {"llama-tiny", 3, 5, 8}};

TEST(DecodeAccuracyTest, IdenticalCandidateAgreesFullyWithNoDifference) {
  for (const AgreementSetup& s : kSetups) {
    SCOPED_TRACE(s.preset);
    const GptConfig c = *GptPreset(s.preset);
    const std::vector<float> params = Params(c, 11);
    const std::vector<float> copy = params;
    auto ref = Decoder(c, params, s.B, s.P, s.P + s.G);
    auto cand = Decoder(c, copy, s.B, s.P, s.P + s.G);
    const std::vector<int32_t> prompts = Tokens(static_cast<int64_t>(s.B) * s.P, c.vocab, 5);
    auto r = MeasureAgreement(ref.get(), cand.get(), prompts, s.P, s.G);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->compared, static_cast<int64_t>(s.B) * s.G);
    EXPECT_EQ(r->agreed, r->compared);
    EXPECT_EQ(r->agreement(), 1.0);
    EXPECT_EQ(r->max_abs_logit_diff, 0.0);
    EXPECT_EQ(r->mean_abs_logit_diff, 0.0);
    EXPECT_EQ(r->rms_logit_diff, 0.0);
    EXPECT_EQ(r->fragile_flipped, 0);
    for (double m : r->margins) EXPECT_GT(m, 0.0);
    // The tokens fed are the reference's own greedy generation.
    auto solo = Decoder(c, params, s.B, s.P, s.P + s.G);
    std::vector<int32_t> next;
    ASSERT_TRUE(solo->Prefill(prompts, s.P).ok());
    for (int g = 0; g < s.G; ++g) {
      if (g > 0) ASSERT_TRUE(solo->Step(next).ok());
      ASSERT_TRUE(solo->Greedy(&next).ok());
      for (int b = 0; b < s.B; ++b) EXPECT_EQ(r->reference_tokens[b * s.G + g], next[b]) << b << " " << g;
    }
    // The same perplexity, to the bit, on a stream longer than the window.
    auto ref1 = Decoder(c, params, 1, 1, 7);
    auto cand1 = Decoder(c, copy, 1, 1, 7);
    const std::vector<int32_t> stream = Tokens(20, c.vocab, 6);
    auto pr = MeasurePerplexity(ref1.get(), stream);
    auto pc = MeasurePerplexity(cand1.get(), stream);
    ASSERT_TRUE(pr.ok() && pc.ok());
    EXPECT_EQ(pr->mean_nll, pc->mean_nll);
    EXPECT_EQ(pr->predictions, 19);
    EXPECT_EQ(pr->windows, 3);  // 7 + 7 + 5 predictions
  }
}

TEST(DecodeAccuracyTest, PerturbedCandidateDiffersAndFlipsOnlyWhereTheMarginIsSmall) {
  for (const AgreementSetup& s : kSetups) {
    for (WeightFormat f : {WeightFormat::kInt8, WeightFormat::kBf16}) {
      SCOPED_TRACE(std::string(s.preset) + " " + WeightFormatName(f));
      const GptConfig c = *GptPreset(s.preset);
      const std::vector<float> params = Params(c, 12);
      auto rounded = RoundLinearWeights(c, params.data(), f);
      ASSERT_TRUE(rounded.ok()) << rounded.status();
      auto ref = Decoder(c, params, s.B, s.P, s.P + s.G);
      auto cand = Decoder(c, *rounded, s.B, s.P, s.P + s.G);
      auto r = MeasureAgreement(ref.get(), cand.get(), Tokens(static_cast<int64_t>(s.B) * s.P, c.vocab, 7), s.P,
                                s.G);
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_GT(r->max_abs_logit_diff, 0.0);
      EXPECT_GT(r->rms_logit_diff, 0.0);
      EXPECT_LE(r->mean_abs_logit_diff, r->rms_logit_diff);
      EXPECT_LE(r->rms_logit_diff, r->max_abs_logit_diff);
      // A flip moves the top two logits apart by the margin: at most 2x the step's largest change.
      EXPECT_EQ(r->fragile_flipped, r->compared - r->agreed);
    }
    // Per-row 4-bit weights (levels -7..7, a test-only format far coarser than int8): flips (here
    // 1 of 96 steps on test-mini, 2 of 24 on llama-tiny).
    const GptConfig c = *GptPreset(s.preset);
    const std::vector<float> params = Params(c, 12);
    const std::vector<float> coarse = RoundTripRows(c, params, 7);
    auto ref = Decoder(c, params, s.B, s.P, s.P + s.G);
    auto cand = Decoder(c, coarse, s.B, s.P, s.P + s.G);
    auto r = MeasureAgreement(ref.get(), cand.get(), Tokens(static_cast<int64_t>(s.B) * s.P, c.vocab, 7), s.P, s.G);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_LT(r->agreement(), 1.0) << s.preset << ": " << r->agreed << " of " << r->compared;
    EXPECT_GT(r->agreement(), 0.5) << s.preset << ": " << r->agreed << " of " << r->compared;
    EXPECT_EQ(r->fragile_flipped, r->compared - r->agreed);
  }
}

// Perplexity from the training model's full forward, by hand: stream of 40 tokens, windows of 16
// positions (the block of llama-tiny): 16 + 16 + 7 predictions.
TEST(DecodeAccuracyTest, PerplexityMatchesAHandComputationOverWindows) {
  const GptConfig c = *GptPreset("llama-tiny");
  const std::vector<float> params = Params(c, 13);
  const std::vector<int32_t> stream = Tokens(40, c.vocab, 8);
  auto d = Decoder(c, params, 1, 1, c.block);
  auto r = MeasurePerplexity(d.get(), stream);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tokens, 40);
  EXPECT_EQ(r->predictions, 39);
  EXPECT_EQ(r->windows, 3);
  EXPECT_EQ(r->window, 16);
  long double nll = 0;
  for (int start = 0; start < 39; start += 16) {
    for (int t = start; t < std::min(39, start + 16); ++t) {
      const std::vector<int32_t> prefix(stream.begin() + start, stream.begin() + t + 1);
      const std::vector<float> logits =
          FullForwardLastLogits(c, params, prefix, 1, static_cast<int>(prefix.size()));
      long double sum = 0;
      for (int v = 0; v < c.vocab; ++v) sum += std::exp(static_cast<long double>(logits[v]));
      nll += std::log(sum) - logits[stream[t + 1]];
    }
  }
  const double want = static_cast<double>(nll / 39);
  EXPECT_NEAR(r->mean_nll, want, 1e-5 * want);
  EXPECT_NEAR(r->perplexity(), std::exp(want), 1e-5 * std::exp(want));
}

TEST(DecodeAccuracyTest, HelpersOnHandRows) {
  const float row[4] = {1.0f, 3.0f, 2.0f, 100.0f};  // the last is padding when V = 3
  EXPECT_NEAR(NegLogLikelihood(row, 3, 2), std::log(std::exp(1.0) + std::exp(3.0) + std::exp(2.0)) - 2.0, 1e-12);
  EXPECT_NEAR(NegLogLikelihood(row, 3, 1), std::log(std::exp(1.0) + std::exp(3.0) + std::exp(2.0)) - 3.0, 1e-12);
  EXPECT_EQ(Top1Margin(row, 3), 1.0);
  const float tie[3] = {5.0f, 1.0f, 5.0f};
  EXPECT_EQ(Top1Margin(tie, 3), 0.0);
  const float big[2] = {1000.0f, 0.0f};  // no overflow: max-subtracted
  EXPECT_NEAR(NegLogLikelihood(big, 2, 1), 1000.0, 1e-9);
}

TEST(DecodeAccuracyTest, BadArgumentsAreRefused) {
  const GptConfig c = *GptPreset("test-tiny");
  const std::vector<float> params = Params(c, 14);
  auto d1 = Decoder(c, params, 1, 2, 8);
  auto d2 = Decoder(c, params, 2, 2, 8);
  auto mismatch = MeasureAgreement(d1.get(), d2.get(), {1, 2}, 2, 3);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(std::string(mismatch.status().message()).find("the decoders differ"), std::string::npos);
  auto no_steps = MeasureAgreement(d1.get(), d1.get(), {1, 2}, 2, 0);
  ASSERT_FALSE(no_steps.ok());
  EXPECT_NE(std::string(no_steps.status().message()).find("G=0"), std::string::npos);
  auto two = MeasurePerplexity(d2.get(), {1, 2, 3});
  ASSERT_FALSE(two.ok());
  EXPECT_NE(std::string(two.status().message()).find("B=2"), std::string::npos);
  auto short_stream = MeasurePerplexity(d1.get(), {1});
  ASSERT_FALSE(short_stream.ok());
  EXPECT_NE(std::string(short_stream.status().message()).find("a stream of 1 tokens"), std::string::npos);
  auto bad_token = MeasurePerplexity(d1.get(), {1, 2, c.vocab});
  ASSERT_FALSE(bad_token.ok());
  EXPECT_NE(std::string(bad_token.status().message()).find("stream token 2 is 60"), std::string::npos)
      << bad_token.status();
}

}  // namespace
}  // namespace model
