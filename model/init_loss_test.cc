// The loss at initialisation against what the initialisation predicts. Every family starts from
// GPT-2's init (param_init.h: std 0.02, the residual projections 0.02 / sqrt(2L), norm weights 1,
// no biases), so the final norm's output has unit scale and each logit is a sum of C terms of
// std 0.02: logits within a row are near N(0, sigma^2) with sigma ~ 0.02 sqrt(C). For random
// targets the cross-entropy is then E[logsumexp(z)] - E[z_target] = ln(V) + sigma^2 / 2 (the mean
// of a log-normal sum), with sigma the logits' measured standard deviation across the vocabulary.
// The measured loss must be within 0.05 of it: a wrong norm, scale or head shows as a loss
// far from it (GPT-2 124M: 10.946 against ln(50257) = 10.825).
#include <cmath>
#include <cstdio>
#include <string>

#include "gtest/gtest.h"
#include "model/cpu_gpt.h"
#include "model/data/batch_source.h"
#include "model/param_init.h"

namespace model {
namespace {

void ExpectInitialLossAsPredicted(const std::string& preset, int B, int T) {
  const GptConfig c = *GptPreset(preset);
  auto m = CpuGpt<float>::Create(c, B, T);
  ASSERT_TRUE(m.ok()) << m.status();
  InitParams(c, (*m)->layout(), /*seed=*/1337, (*m)->params());
  auto source = MakeFixedRandomBatchSource(B, T, c.vocab, /*seed=*/7);
  ASSERT_TRUE(source.ok());
  Batch batch;
  ASSERT_TRUE((*source)->Next(&batch).ok());
  ASSERT_TRUE((*m)->Forward(batch).ok());
  // The logits' variance across the real vocabulary, averaged over the rows.
  const float* logits = (*m)->logits();
  double variance = 0;
  for (int64_t r = 0; r < int64_t{B} * T; ++r) {
    double sum = 0, sum2 = 0;
    for (int64_t v = 0; v < c.vocab; ++v) {
      const double z = logits[r * c.padded_vocab + v];
      sum += z;
      sum2 += z * z;
    }
    const double mean = sum / c.vocab;
    variance += sum2 / c.vocab - mean * mean;
  }
  variance /= double(B) * T;
  const double predicted = std::log(double(c.vocab)) + variance / 2;
  std::printf("%s: initial loss %.4f, predicted ln(V) + sigma^2/2 = %.4f + %.4f = %.4f (sigma %.4f)\n",
              preset.c_str(), (*m)->loss(), std::log(double(c.vocab)), variance / 2, predicted, std::sqrt(variance));
  EXPECT_NEAR((*m)->loss(), predicted, 0.05) << preset;
}

TEST(InitLoss, Gpt2) { ExpectInitialLossAsPredicted("gpt2", 4, 64); }
TEST(InitLoss, Llama124m) { ExpectInitialLossAsPredicted("llama-124m", 4, 64); }
TEST(InitLoss, LlamaTiny) { ExpectInitialLossAsPredicted("llama-tiny", 16, 16); }

}  // namespace
}  // namespace model
