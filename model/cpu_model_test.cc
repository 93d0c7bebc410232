// The GptModel interface on the CPU: shapes, errors for misuse and bad batches, logits kept
// until Backward, parameter round trips, gradient accumulation, and AdamW's weight decay rule.
#include "model/cpu_model.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "model/data/batch_source.h"
#include "model/param_layout.h"

namespace model {
namespace {

constexpr int kB = 2, kT = 8;

std::unique_ptr<GptModel> Tiny() {
  auto m = MakeCpuModel(*GptPreset("test-tiny"), kB, kT, 1);
  EXPECT_TRUE(m.ok());
  return std::move(*m);
}

Batch TinyBatch() {
  auto src = MakeFixedRandomBatchSource(kB, kT, GptPreset("test-tiny")->vocab, 2);
  Batch b;
  EXPECT_TRUE((*src)->Next(&b).ok());
  return b;
}

TEST(CpuModel, Basics) {
  auto m = Tiny();
  EXPECT_EQ(m->device(), "cpu");
  EXPECT_EQ(m->batch_size(), kB);
  EXPECT_EQ(m->seq_len(), kT);
  EXPECT_EQ(m->num_params(), ParamLayout(m->config()).num_params());
  EXPECT_NE(m->params_data(), nullptr);
  EXPECT_NE(m->grads_data(), nullptr);
  m->Synchronize();
}

TEST(CpuModel, CreationErrors) {
  auto bad = MakeCpuModel(*GptPreset("test-tiny"), kB, 17, 1);  // block is 16
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("seq=17"), std::string::npos);
  GptConfig c = *GptPreset("test-tiny");
  c.heads = 3;
  EXPECT_FALSE(MakeCpuModel(c, kB, kT, 1).ok());
  // gpt2-xl at B=64, T=1024 needs ~350 GB (the attention scores alone are 322 GB).
  auto huge = MakeCpuModel(*GptPreset("gpt2-xl"), 64, 1024, 1);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(huge.status().message().find(" available ("), std::string::npos) << huge.status();
}

TEST(CpuModel, BadBatchesAreRejected) {
  auto m = Tiny();
  Batch b = TinyBatch();
  b.targets[5] = 60;  // vocab is 60
  absl::Status st = m->Forward(b);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("target token 60"), std::string::npos) << st;
  EXPECT_NE(st.message().find("[0, 60)"), std::string::npos) << st;
  b = TinyBatch();
  b.inputs[0] = -1;
  EXPECT_FALSE(m->Forward(b).ok());
  b = TinyBatch();
  b.T = 4;
  st = m->Forward(b);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("planned"), std::string::npos) << st;
}

TEST(CpuModel, OrderOfCallsIsEnforced) {
  auto m = Tiny();
  std::vector<float> logits;
  EXPECT_EQ(m->Backward().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(m->CopyLogitsToHost(&logits).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(m->Forward(TinyBatch()).ok());
  ASSERT_TRUE(m->CopyLogitsToHost(&logits).ok());
  EXPECT_EQ(logits.size(), size_t{kB} * kT * 64);
  ASSERT_TRUE(m->Backward().ok());
  EXPECT_EQ(m->CopyLogitsToHost(&logits).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(m->Backward().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(m->Update(AdamWConfig{}, 0).ok());
  AdamWConfig bad;
  bad.beta2 = 1.0f;
  absl::Status st = m->Update(bad, 1);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("beta2=1"), std::string::npos) << st;
}

TEST(CpuModel, LossIsMeanCrossEntropyOfTheLogits) {
  auto m = Tiny();
  const Batch b = TinyBatch();
  ASSERT_TRUE(m->Forward(b).ok());
  std::vector<float> logits;
  ASSERT_TRUE(m->CopyLogitsToHost(&logits).ok());
  const int V = 60, Vp = 64;
  double sum = 0;
  for (int r = 0; r < kB * kT; ++r) {
    double mx = -1e30, s = 0;
    for (int i = 0; i < V; ++i) mx = std::max(mx, double(logits[r * Vp + i]));
    for (int i = 0; i < V; ++i) s += std::exp(logits[r * Vp + i] - mx);
    sum += mx + std::log(s) - logits[r * Vp + b.targets[r]];
  }
  EXPECT_NEAR(m->loss(), sum / (kB * kT), 1e-6);
}

TEST(CpuModel, BackwardAccumulatesUntilZeroGrad) {
  auto m = Tiny();
  const Batch b = TinyBatch();
  std::vector<float> once, twice;
  m->ZeroGrad();
  ASSERT_TRUE(m->Forward(b).ok());
  ASSERT_TRUE(m->Backward().ok());
  ASSERT_TRUE(m->CopyGradsToHost(&once).ok());
  ASSERT_TRUE(m->Forward(b).ok());
  ASSERT_TRUE(m->Backward().ok());
  ASSERT_TRUE(m->CopyGradsToHost(&twice).ok());
  for (size_t i = 0; i < once.size(); ++i) ASSERT_NEAR(twice[i], 2 * once[i], 1e-6) << i;
  m->ZeroGrad();
  ASSERT_TRUE(m->CopyGradsToHost(&twice).ok());
  for (float g : twice) ASSERT_EQ(g, 0.0f);
}

// ZeroGrad makes no pass over the gradients: the next Backward writes every one of them over.
// Against the old way (the buffer zeroed, then a Backward that adds): the same gradients, bit
// for bit, even where the buffer held NaN before, so no gradient is left unwritten (T < block
// leaves wpe rows no position reaches; an untied config leaves wte rows no token reaches).
TEST(CpuModel, AStepWithoutAZeroingPassGivesTheSameGradients) {
  for (const bool tied : {true, false}) {
    SCOPED_TRACE(tied ? "tied" : "untied");
    GptConfig c = *GptPreset("test-tiny");
    c.tie_weights = tied;
    auto lazy = MakeCpuModel(c, kB, kT, 1);
    auto zeroed = MakeCpuModel(c, kB, kT, 1);
    ASSERT_TRUE(lazy.ok() && zeroed.ok());
    const Batch b = TinyBatch();
    const int64_t n = (*lazy)->num_params();
    // The old way: zeros written, then Backward adds to them (no ZeroGrad pending).
    std::fill((*zeroed)->grads_data(), (*zeroed)->grads_data() + n, 0.0f);
    ASSERT_TRUE((*zeroed)->Forward(b).ok());
    ASSERT_TRUE((*zeroed)->Backward().ok());
    // The new way, over a buffer of NaN: ZeroGrad, then Backward overwrites.
    std::fill((*lazy)->grads_data(), (*lazy)->grads_data() + n, std::nanf(""));
    ASSERT_TRUE((*lazy)->Forward(b).ok());
    (*lazy)->ZeroGrad();
    ASSERT_TRUE((*lazy)->Backward().ok());
    std::vector<float> want, got;
    ASSERT_TRUE((*zeroed)->CopyGradsToHost(&want).ok());
    ASSERT_TRUE((*lazy)->CopyGradsToHost(&got).ok());
    ASSERT_EQ(got.size(), want.size());
    int64_t nonzero = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_EQ(got[i], want[i]) << "gradient " << i << " of " << got.size();
      nonzero += got[i] != 0.0f;
    }
    EXPECT_GT(nonzero, n / 2);  // the comparison is of real gradients, not of two zero buffers
    // And the second Backward of a step still adds (gradient accumulation).
    ASSERT_TRUE((*lazy)->Forward(b).ok());
    ASSERT_TRUE((*lazy)->Backward().ok());
    ASSERT_TRUE((*lazy)->CopyGradsToHost(&got).ok());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], 2 * want[i], 1e-6) << i;
  }
}

// The grad-ready hook (grad_ready.h) that DDP overlaps its all-reduce with: every gradient is
// reported exactly once per Backward, and what a group holds when reported is already its final
// value (no later op of the Backward writes it), tied and untied, with and without accumulation.
TEST(CpuModel, GradReadyHookReportsEachGradientOnceWhenFinal) {
  for (const bool tied : {true, false}) {
    SCOPED_TRACE(tied ? "tied" : "untied");
    GptConfig c = *GptPreset("test-tiny");
    c.tie_weights = tied;
    auto m = MakeCpuModel(c, kB, kT, 1);
    ASSERT_TRUE(m.ok());
    GptModel& model = **m;
    const int64_t n = model.num_params();
    std::vector<GradRange> seen;
    std::vector<float> at_report(n, std::nanf(""));
    int groups = 0;
    ASSERT_TRUE(model.SetGradReadyHook([&](const std::vector<GradRange>& ranges) {
      ++groups;
      for (const GradRange& r : ranges) {
        seen.push_back(r);
        std::copy(model.grads_data() + r.offset, model.grads_data() + r.offset + r.count, at_report.begin() + r.offset);
      }
    }));
    const Batch b = TinyBatch();
    for (const bool accumulate : {false, true}) {
      SCOPED_TRACE(accumulate ? "second Backward (adds)" : "first Backward");
      seen.clear();
      groups = 0;
      if (!accumulate) model.ZeroGrad();
      ASSERT_TRUE(model.Forward(b).ok());
      ASSERT_TRUE(model.Backward().ok());
      EXPECT_EQ(groups, c.layers + 2);  // ln_f (+ LM head), each layer, the embeddings
      std::vector<int> covered(n, 0);
      for (const GradRange& r : seen) {
        ASSERT_GE(r.offset, 0);
        ASSERT_LE(r.offset + r.count, n);
        for (int64_t i = r.offset; i < r.offset + r.count; ++i) ++covered[i];
      }
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(covered[i], 1) << "gradient " << i;
      std::vector<float> final_grads;
      ASSERT_TRUE(model.CopyGradsToHost(&final_grads).ok());
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(at_report[i], final_grads[i]) << "gradient " << i;
    }
    ASSERT_TRUE(model.SetGradReadyHook(nullptr));
    groups = 0;
    ASSERT_TRUE(model.Forward(b).ok());
    ASSERT_TRUE(model.Backward().ok());
    EXPECT_EQ(groups, 0);
  }
}

TEST(CpuModel, ParamsRoundTrip) {
  auto m = Tiny();
  std::vector<float> p;
  ASSERT_TRUE(m->CopyParamsToHost(&p).ok());
  for (auto& x : p) x *= 2;
  ASSERT_TRUE(m->CopyParamsFromHost(p).ok());
  std::vector<float> q;
  ASSERT_TRUE(m->CopyParamsToHost(&q).ok());
  EXPECT_EQ(p, q);
  p.pop_back();
  EXPECT_FALSE(m->CopyParamsFromHost(p).ok());
}

// With zero gradients AdamW leaves m, v and the step at zero, so the only change is the decay:
// matrices shrink by (1 - lr*wd); biases and LayerNorms stay put.
TEST(CpuModel, WeightDecayOnlyOnMatrices) {
  auto m = Tiny();
  std::vector<float> before, after;
  ASSERT_TRUE(m->CopyParamsToHost(&before).ok());
  m->ZeroGrad();
  AdamWConfig opt;
  opt.lr = 0.1f;
  opt.weight_decay = 0.5f;
  ASSERT_TRUE(m->Update(opt, 1).ok());
  ASSERT_TRUE(m->CopyParamsToHost(&after).ok());
  const ParamLayout layout(m->config());
  for (const ParamTensorInfo& t : layout.tensors()) {
    for (int64_t i = t.offset; i < t.offset + t.size; ++i) {
      const float want = t.weight_decay ? before[i] - 0.1f * 0.5f * before[i] : before[i];
      ASSERT_NEAR(after[i], want, 1e-7) << t.name;
    }
  }
}

}  // namespace
}  // namespace model
