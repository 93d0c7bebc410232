// The CPU path is deterministic: the same seed and batch give the same losses and parameters,
// bit for bit, after several training steps (reductions run in a fixed order: parallel loops
// own disjoint outputs, and sums of a row or column are never split across threads).
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "model/train_setup.h"

namespace model {
namespace {

struct TrainRun {
  std::vector<float> losses, params, grads, logits;
};

TrainRun Train(uint64_t seed) {
  const GptConfig c = *GptPreset("test-mini");
  const int B = 2, T = 32;
  TrainRun r;
  auto setup = MakeModelAndBatch(c, B, T, seed, 11);
  if (!setup.ok()) {
    ADD_FAILURE() << setup.status();
    return r;
  }
  GptModel& m = *setup->model;
  const Batch& batch = setup->batch;
  AdamWConfig opt;
  for (int step = 1; step <= 3; ++step) {
    EXPECT_TRUE(m.Forward(batch).ok());
    r.losses.push_back(m.loss());
    if (step == 3) {
      EXPECT_TRUE(m.CopyLogitsToHost(&r.logits).ok());
    }
    m.ZeroGrad();
    EXPECT_TRUE(m.Backward().ok());
    EXPECT_TRUE(m.Update(opt, step).ok());
  }
  EXPECT_TRUE(m.CopyParamsToHost(&r.params).ok());
  EXPECT_TRUE(m.CopyGradsToHost(&r.grads).ok());
  return r;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(Determinism, SameSeedSameBits) {
  const TrainRun a = Train(7), b = Train(7);
  EXPECT_TRUE(SameBits(a.losses, b.losses));
  EXPECT_TRUE(SameBits(a.logits, b.logits));
  EXPECT_TRUE(SameBits(a.grads, b.grads));
  EXPECT_TRUE(SameBits(a.params, b.params));
  // And the comparison can fail: another seed changes everything.
  const TrainRun c = Train(8);
  EXPECT_FALSE(SameBits(a.losses, c.losses));
  EXPECT_FALSE(SameBits(a.params, c.params));
}

}  // namespace
}  // namespace model
