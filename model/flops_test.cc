// The FLOPs the matmuls of one training step report to accounting's counter, against
// accounting's 6N + attention formula (kFull convention: 12*L*C*T per token, with T the
// sequence actually run, N without position embeddings, vocab = the padded vocab the LM head
// really multiplies by).
//
// Where the remainder comes from: 6N counts 6 FLOPs per token for EVERY parameter in N, but only
// the Linear weights and the (tied) LM head are multiplied; the biases and LayerNorm parameters
// (13C per layer + 2C) do no matmul. So, exactly,
//     counted = 6 * tokens * matmul_params + 12 * L * C * T * tokens
//     formula - counted = 6 * tokens * (N - matmul_params)
// The test checks this identity to the FLOP and the 2% agreement it implies (here 0.78%;
// for GPT-2 124M, 0.08%).
#include <cstdio>

#include "accounting/flop_counter.h"
#include "accounting/gpt_flops.h"
#include "gtest/gtest.h"
#include "model/param_layout.h"
#include "model/train_setup.h"

namespace model {
namespace {

GptConfig CountConfig() {
  // name, layers, heads, width, vocab, padded_vocab, block.
  return GptConfig{"flops-test", 2, 4, 128, 500, 512, 64};
}

// The Llama family's switches at the same size: 2 K/V heads, SwiGLU of F = 192, RMSNorm, RoPE,
// untied, no biases (N then leaves the input embedding out, and the LM head is its own matrix).
GptConfig LlamaCountConfig() {
  GptConfig c = CountConfig();
  c.name = "flops-test-llama";
  c.bias = false;
  c.tie_weights = false;
  c.norm = NormKind::kRmsNorm;
  c.positions = PositionKind::kRope;
  c.mlp = MlpKind::kSwiglu;
  c.mlp_hidden = 192;
  c.kv_heads = 2;
  return c;
}

void CheckOneStep(const GptConfig& c) {
  const int B = 2, T = 32;
  const double tokens = B * T;
  auto setup = MakeModelAndBatch(c, B, T, 1, 2);
  ASSERT_TRUE(setup.ok()) << setup.status();

  accounting::FlopCounter counter;
  {
    accounting::ScopedFlopCounter scope(&counter);
    ASSERT_TRUE(ForwardBackward(*setup->model, setup->batch).ok());
  }
  const accounting::GptShape shape = ToGptShape(c);
  const double formula =
      accounting::TrainFlopsPerToken(shape, T, accounting::AttentionConvention::kFull) * tokens;
  const ParamLayout layout(c);
  const double n = accounting::FlopParamCount(shape);
  const double matmul_params = layout.matmul_params();
  const double attention =
      accounting::AttentionTrainFlopsPerToken(shape, T, accounting::AttentionConvention::kFull) * tokens;

  std::printf("counted %.0f FLOPs in %lld matmuls; formula 6N + 12LCT: %.0f (ratio %.5f)\n",
              counter.matmul_total(), static_cast<long long>(counter.matmul_calls()), formula,
              counter.matmul_total() / formula);
  for (const auto& [tag, flops] : counter.by_tag()) {
    std::printf("  %-16s %14.0f\n", tag.c_str(), flops);
  }
  std::printf(
      "N = %.0f, of which in matmuls %.0f; the rest (biases, LayerNorms): %.0f -> "
      "6 * tokens * rest = %.0f FLOPs\n",
      n, matmul_params, n - matmul_params, 6 * tokens * (n - matmul_params));

  EXPECT_EQ(counter.total(), counter.matmul_total());  // the model reports only matmuls
  EXPECT_EQ(counter.matmul_total(), 6 * tokens * matmul_params + attention);
  EXPECT_EQ(formula - counter.matmul_total(), 6 * tokens * (n - matmul_params));
  EXPECT_NEAR(counter.matmul_total() / formula, 1.0, 0.02);

  // Per tag: backward = 2x forward for every Linear (all inputs need gradients); the LM head
  // forward is 2 * tokens * C * Vp.
  const auto tags = counter.by_tag();
  for (const char* t : {"qkv", "attproj", "fc", "fcproj", "lm_head"}) {
    EXPECT_EQ(tags.at(std::string(t) + ".bwd"), 2 * tags.at(t)) << t;
  }
  EXPECT_EQ(tags.at("lm_head"), 2 * tokens * c.width * c.padded_vocab);
  EXPECT_EQ(tags.at("attention_qk") + tags.at("attention_av"), attention / 3);
}

TEST(Flops, OneStepMatchesSixNPlusAttention) { CheckOneStep(CountConfig()); }

// The FLOP counter agrees with the formula for the Llama family as for GPT-2, to the FLOP once
// the parameters that do no matmul (the RMSNorm weights) are set apart.
TEST(Flops, OneLlamaStepMatchesSixNPlusAttention) { CheckOneStep(LlamaCountConfig()); }

// The remainder for the real GPT-2 shapes, from the layouts alone (no 124M run in a unit test).
TEST(Flops, Gpt2RemainderIsSmall) {
  const GptConfig c = *GptPreset("gpt2");
  const ParamLayout layout(c);
  const double n = accounting::GptParamCount(ToGptShape(c), false);
  const double rest = n - layout.matmul_params();
  EXPECT_EQ(rest, c.layers * 13.0 * c.width + 2.0 * c.width);
  EXPECT_LT(rest / n, 0.001);
}

}  // namespace
}  // namespace model
