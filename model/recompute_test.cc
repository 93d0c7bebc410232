// Activation recomputation in the CPU model: each level gives the gradients of kNone bit for bit
// (the backward reruns the same ops on the same kept inputs), keeps fewer activations, and issues
// the FLOPs accounting predicts for it (the HFU side; the model FLOPs do not change).
#include <cstdio>
#include <string>
#include <vector>

#include "accounting/flop_counter.h"
#include "accounting/gpt_flops.h"
#include "gtest/gtest.h"
#include "model/activation_layout.h"
#include "model/cpu_gpt.h"
#include "model/data/batch_source.h"
#include "model/param_init.h"

namespace model {
namespace {

using accounting::Recompute;

struct StepResult {
  double loss = 0;
  std::vector<float> grads;
  int64_t activation_elements = 0;
  double matmul_flops = 0;
};

StepResult RunStep(const GptConfig& c, int B, int T, Recompute r) {
  auto m = CpuGpt<float>::Create(c, B, T, /*bf16_gemms=*/false, r);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  InitParams(c, (*m)->layout(), /*seed=*/3, (*m)->params());
  auto src = MakeFixedRandomBatchSource(B, T, c.vocab, /*seed=*/5);
  Batch batch;
  EXPECT_TRUE((*src)->Next(&batch).ok());
  accounting::FlopCounter counter;
  {
    accounting::ScopedFlopCounter scope(&counter);
    EXPECT_TRUE((*m)->Forward(batch).ok());
    (*m)->ZeroGrad();
    EXPECT_TRUE((*m)->Backward().ok());
  }
  StepResult out;
  out.loss = (*m)->loss();
  out.grads.assign((*m)->grads(), (*m)->grads() + (*m)->num_params());
  out.activation_elements = (*m)->activation_elements();
  out.matmul_flops = counter.matmul_total();
  return out;
}

void CheckLevels(const std::string& preset, int B, int T) {
  const GptConfig c = *GptPreset(preset);
  const StepResult none = RunStep(c, B, T, Recompute::kNone);
  const accounting::GptShape shape = ToGptShape(c);
  for (Recompute r : {Recompute::kActivation, Recompute::kAttention, Recompute::kBlock}) {
    const StepResult got = RunStep(c, B, T, r);
    EXPECT_EQ(got.loss, none.loss) << preset << " " << accounting::RecomputeName(r);
    ASSERT_EQ(got.grads.size(), none.grads.size());
    int64_t differ = 0;
    for (size_t i = 0; i < got.grads.size(); ++i) differ += got.grads[i] != none.grads[i];
    EXPECT_EQ(differ, 0) << preset << " " << accounting::RecomputeName(r) << ": gradients not bit for bit kNone's";
    EXPECT_LT(got.activation_elements, none.activation_elements) << accounting::RecomputeName(r);
    // The issued FLOPs: kNone's plus the level's recompute, as accounting predicts it up to the
    // parameters that do no matmul (norms, biases: 2 FLOPs a token each, well under 1%).
    const double predicted_extra =
        accounting::RecomputeFlopsPerToken(shape, T, accounting::AttentionConvention::kFull, r) * B * T;
    const double extra = got.matmul_flops - none.matmul_flops;
    std::printf("%s %-10s activations %lld -> %lld elements (%.1f%%), recompute %.0f FLOPs (predicted %.0f)\n",
                preset.c_str(), accounting::RecomputeName(r), static_cast<long long>(none.activation_elements),
                static_cast<long long>(got.activation_elements),
                100.0 * got.activation_elements / none.activation_elements, extra, predicted_extra);
    if (predicted_extra == 0) {
      EXPECT_EQ(extra, 0);
    } else {
      EXPECT_NEAR(extra / predicted_extra, 1.0, 0.01) << accounting::RecomputeName(r);
    }
  }
}

TEST(Recompute, Gpt2FamilyLevelsGiveKNonesGradientsBitForBit) { CheckLevels("test-mini", 2, 32); }
TEST(Recompute, LlamaFamilyLevelsGiveKNonesGradientsBitForBit) { CheckLevels("llama-tiny", 2, 16); }

TEST(Recompute, FullIsNotAModelLevel) {
  auto m = CpuGpt<float>::Create(*GptPreset("test-tiny"), 2, 8, false, Recompute::kFull);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("activation, attention or block"), std::string::npos) << m.status();
}

}  // namespace
}  // namespace model
