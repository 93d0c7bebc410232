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
  TrainRun r;
  StepHooks hooks;
  hooks.after_forward = [&r](int step, GptModel& m) {
    if (step == 3) {
      EXPECT_TRUE(m.CopyLogitsToHost(&r.logits).ok());
    }
  };
  auto t = TrainOnFixedBatch(*GptPreset("test-mini"), /*B=*/2, /*T=*/32, seed, /*batch_seed=*/11, /*steps=*/3,
                             hooks);
  if (!t.ok()) {
    ADD_FAILURE() << t.status();
    return r;
  }
  r.losses = t->losses;
  EXPECT_TRUE(t->model->CopyParamsToHost(&r.params).ok());
  EXPECT_TRUE(t->model->CopyGradsToHost(&r.grads).ok());
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
