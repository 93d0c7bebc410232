// Training on one fixed batch drives the loss from about ln(vocab) to a small fraction of it:
// the forward, backward and AdamW pieces work together.
#include <cmath>
#include <cstdio>

#include "gtest/gtest.h"
#include "model/train_setup.h"

namespace model {
namespace {

void OverfitsOneBatch(const char* preset) {
  SCOPED_TRACE(preset);
  const GptConfig c = *GptPreset(preset);
  const int B = 4, T = 16;
  auto setup = MakeModelAndBatch(c, B, T, 1337, 3);
  ASSERT_TRUE(setup.ok()) << setup.status();
  GptModel& m = *setup->model;
  const Batch& batch = setup->batch;
  AdamWConfig opt;
  opt.lr = 1e-2f;
  opt.weight_decay = 0.0f;
  const double ln_v = std::log(double(c.vocab));
  const int kMaxSteps = 400;
  float first = 0, loss = 0;
  int step = 1;
  for (; step <= kMaxSteps; ++step) {
    ASSERT_TRUE(m.Forward(batch).ok());
    loss = m.loss();
    if (step == 1) first = loss;
    if (loss < 0.1 * ln_v) break;
    m.ZeroGrad();
    ASSERT_TRUE(m.Backward().ok());
    ASSERT_TRUE(m.Update(opt, step).ok());
  }
  std::printf("%s: loss %.4f at step 1 (ln V = %.4f), %.4f at step %d\n", preset, first, ln_v, loss, step);
  // GPT-2 init gives near-uniform predictions: the first loss is ln V within a few percent.
  EXPECT_NEAR(first, ln_v, 0.05 * ln_v);
  EXPECT_LT(loss, 0.1 * ln_v) << "not reached in " << kMaxSteps << " steps";
}

// GPT-2's tiny preset (V = 60: ln V = 4.09) and the Llama family's (llama-tiny: RMSNorm, RoPE,
// SwiGLU, grouped-query attention, untied head; V = 64: ln V = 4.16).
TEST(Overfit, OneBatchLossFallsBelowTenthOfLnVocab) { OverfitsOneBatch("test-tiny"); }
TEST(Overfit, LlamaTinyOneBatchLossFallsBelowTenthOfLnVocab) { OverfitsOneBatch("llama-tiny"); }

}  // namespace
}  // namespace model
