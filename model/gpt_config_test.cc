// Presets, validation messages, parameter counts against accounting's formula, and the memory
// estimate against what the CPU model actually allocates.
#include "model/gpt_config.h"

#include <cmath>
#include <initializer_list>
#include <string>

#include "accounting/gpt_flops.h"
#include "gtest/gtest.h"
#include "model/activation_layout.h"
#include "model/cpu_gpt.h"
#include "model/gpt_memory.h"
#include "model/param_layout.h"

namespace model {
namespace {

TEST(GptConfig, PresetsAreValidAndNamed) {
  for (const std::string& name : GptPresetNames()) {
    auto c = GptPreset(name);
    ASSERT_TRUE(c.ok()) << name;
    EXPECT_EQ(c->name, name);
    EXPECT_TRUE(ValidateConfig(*c).ok()) << name;
  }
  auto g = GptPreset("gpt2");
  ASSERT_TRUE(g.ok());
  // Every field at once: GPT-2 small (nanoGPT's GPTConfig, vocabulary padded to a multiple of 64).
  EXPECT_EQ(DescribeConfig(*g), "gpt2: L=12 H=12 C=768 V=50257(50304) block=1024 bias tied");
}

TEST(GptConfig, UnknownPresetListsTheAllowedOnes) {
  auto c = GptPreset("gpt3");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("gpt3"), std::string::npos);
  EXPECT_NE(c.status().message().find("gpt2-medium"), std::string::npos);
}

TEST(GptConfig, PadVocab) {
  EXPECT_EQ(PadVocab(50257), 50304);
  EXPECT_EQ(PadVocab(50257, 128), 50304);
  EXPECT_EQ(PadVocab(64), 64);
  EXPECT_EQ(PadVocab(65), 128);
}

// `st` is an error whose message contains each of `texts`.
void ExpectErrorContains(const absl::Status& st, std::initializer_list<const char*> texts) {
  ASSERT_FALSE(st.ok());
  for (const char* t : texts) EXPECT_NE(st.message().find(t), std::string::npos) << t << ": " << st;
}

TEST(GptConfig, ValidationNamesTheValueAndTheRange) {
  GptConfig c = *GptPreset("gpt2");
  c.heads = 7;
  ExpectErrorContains(ValidateConfig(c), {"heads=7", "width=768"});

  c = *GptPreset("gpt2");
  c.layers = 0;
  ExpectErrorContains(ValidateConfig(c), {"layers=0", ">= 1"});

  c = *GptPreset("gpt2");
  c.padded_vocab = 50000;
  ExpectErrorContains(ValidateConfig(c), {"padded_vocab=50000"});

  // Found by fuzz/step_flags_fuzz (UBSan): width=655444536 overflowed int in hidden() = 4 * width
  // before the parameter count could refuse it.
  c = *GptPreset("gpt2");
  c.width = 655444536;
  c.heads = 1;
  ExpectErrorContains(ValidateConfig(c), {"width=655444536", "allowed up to 67108864"});
  c = *GptPreset("llama-124m");
  c.mlp_hidden = 1 << 30;
  ExpectErrorContains(ValidateConfig(c), {"mlp_hidden=1073741824", "too large"});

  c = *GptPreset("gpt2");
  ExpectErrorContains(ValidateRunShape(c, 4, 2048), {"seq=2048", "[1, 1024]"});
  ExpectErrorContains(ValidateRunShape(c, 0, 64), {"batch=0"});
  EXPECT_TRUE(ValidateRunShape(c, 4, 1024).ok());
}

// The buffer the model allocates has exactly accounting's parameter count (padded vocab).
TEST(GptConfig, ParamCountMatchesAccounting) {
  for (const std::string& name : GptPresetNames()) {
    for (bool bias : {true, false}) {
      GptConfig c = *GptPreset(name);
      c.bias = bias;
      const ParamLayout layout(c);
      EXPECT_EQ(layout.num_params(), accounting::GptParamCount(ToGptShape(c), true))
          << name << " bias=" << bias;
    }
  }
  // The familiar figures: llm.c's 124,475,904 (padded) for gpt2; 124,439,808 with V = 50257
  // (nanoGPT's "124M" report, which also excludes nothing).
  const GptConfig g = *GptPreset("gpt2");
  EXPECT_EQ(ParamLayout(g).num_params(), 124475904);
  accounting::GptShape unpadded = ToGptShape(g);
  unpadded.vocab = g.vocab;
  EXPECT_EQ(accounting::GptParamCount(unpadded, true), 124439808);
}

// The Llama presets' published parameter counts, exactly, from the layout and from accounting;
// and N of the FLOP formulas (no untied input embedding, no position table).
TEST(GptConfig, LlamaPresetsHaveTheirPublishedParameterCounts) {
  for (const auto& [name, params] : {std::pair{"llama3-8b", int64_t{8030261248}},
                                     std::pair{"llama3.2-1b", int64_t{1235814400}},
                                     std::pair{"llama-124m", int64_t{124668672}}}) {
    const GptConfig c = *GptPreset(name);
    ASSERT_TRUE(ValidateConfig(c).ok()) << name;
    EXPECT_EQ(ParamLayout(c).num_params(), params) << name;
    EXPECT_EQ(accounting::GptParamCount(ToGptShape(c), true), params) << name;
  }
  const GptConfig l8 = *GptPreset("llama3-8b");
  EXPECT_EQ(accounting::FlopParamCount(ToGptShape(l8)), int64_t{8030261248} - int64_t{128256} * 4096);
  const GptConfig l1 = *GptPreset("llama3.2-1b");  // tied: wte is the LM head and counts
  EXPECT_EQ(accounting::FlopParamCount(ToGptShape(l1)), int64_t{1235814400});
  // The layout of one: no position table, norms without biases, q | k | v rows, gate | up rows.
  const ParamLayout layout(l8);
  EXPECT_EQ(layout.tensor(ParamId::kWpe).size, 0);
  EXPECT_EQ(layout.tensor(ParamId::kLn1b).size, 0);
  EXPECT_EQ(layout.tensor(ParamId::kQkvb).size, 0);
  EXPECT_EQ(layout.tensor(ParamId::kQkvw).shape, (std::vector<int64_t>{32, 4096 + 2 * 1024, 4096}));
  EXPECT_EQ(layout.tensor(ParamId::kFcw).shape, (std::vector<int64_t>{32, 2 * 14336, 4096}));
  EXPECT_EQ(layout.tensor(ParamId::kFcprojw).shape, (std::vector<int64_t>{32, 4096, 14336}));
  EXPECT_EQ(DescribeConfig(*GptPreset("llama-124m")),
            "llama-124m: L=12 H=12 C=768 V=32000(32000) block=1024 no-bias untied KV=4 F=2048 rmsnorm rope(10000) "
            "swiglu");
  EXPECT_EQ(DescribeConfig(*GptPreset("gpt2")), "gpt2: L=12 H=12 C=768 V=50257(50304) block=1024 bias tied");
}

// FLOPs per token of llama3-8b at T=8192 in both conventions: 6N + 12*L*H*hd*T (full, torchtitan)
// and 6N + 6*L*H*hd*T (causal, Megatron-LM).
TEST(GptConfig, LlamaFlopsPerTokenInBothConventions) {
  const accounting::GptShape s = ToGptShape(*GptPreset("llama3-8b"));
  EXPECT_EQ(accounting::TrainFlopsPerToken(s, 8192, accounting::AttentionConvention::kFull), 57914449920.0);
  EXPECT_EQ(accounting::TrainFlopsPerToken(s, 8192, accounting::AttentionConvention::kCausalHalved),
            51471998976.0);
}

// Configurations the switches cannot make: refused naming the value.
TEST(GptConfig, LlamaSwitchesAreValidated) {
  GptConfig c = *GptPreset("llama-tiny");
  ASSERT_TRUE(ValidateConfig(c).ok());
  c.kv_heads = 3;  // 4 query heads
  ExpectErrorContains(ValidateConfig(c), {"kv_heads=3 does not divide heads=4"});
  c = *GptPreset("llama-tiny");
  c.width = 36;  // head size 9: odd
  c.heads = 4;
  ExpectErrorContains(ValidateConfig(c), {"RoPE needs an even head size (width / heads = 9)"});
  c = *GptPreset("llama-tiny");
  c.rope_theta = 1;
  ExpectErrorContains(ValidateConfig(c), {"rope_theta > 1 (1)"});
}

TEST(GptConfig, UntiedWeightsAddAnLmHead) {
  GptConfig c = *GptPreset("test-tiny");
  const int64_t tied = ParamLayout(c).num_params();
  c.tie_weights = false;
  EXPECT_EQ(ParamLayout(c).num_params(), tied + int64_t{c.padded_vocab} * c.width);
}

TEST(GptMemory, EstimateMatchesTheCpuModelsAllocation) {
  GptConfig c = *GptPreset("test-mini");
  const int B = 3, T = 40;
  auto est = EstimateTrainingMemory(c, B, T);
  ASSERT_TRUE(est.ok()) << est.status();
  auto m = CpuGpt<float>::Create(c, B, T);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(est->num_params, (*m)->num_params());
  EXPECT_EQ(est->params_bytes, 4 * (*m)->num_params());
  EXPECT_EQ(est->grads_bytes, est->params_bytes);
  EXPECT_EQ(est->adamw_bytes, 2 * est->params_bytes);
  EXPECT_EQ(est->activations_bytes, 4 * (*m)->activation_elements());
  EXPECT_EQ(est->total_bytes(), 16 * (*m)->num_params() + 4 * (*m)->activation_elements());
  EXPECT_NE(est->Describe().find("activations"), std::string::npos);
}

TEST(GptMemory, Gpt2AtBatch4Seq64) {
  auto est = EstimateTrainingMemory(*GptPreset("gpt2"), 4, 64);
  ASSERT_TRUE(est.ok());
  // 4 copies of 124.5M floats: ~1.99 GB; activations grow with B*T (logits alone 51.5 MB).
  EXPECT_EQ(est->params_bytes + est->grads_bytes + est->adamw_bytes, 16 * int64_t{124475904});
  EXPECT_GT(est->activations_bytes, 4 * int64_t{4 * 64 * 50304});
  auto bad = EstimateTrainingMemory(*GptPreset("gpt2"), 4, 4096);
  EXPECT_FALSE(bad.ok());
}

// Found by fuzz/step_flags_fuzz (UBSan): --block=2147483647 --batch=2147483617 passed the
// checks, and the activation sizes (int64) overflowed in the memory estimate. Sizes are now capped
// at 2^26 each; the activation check still refuses the product.
TEST(GptMemory, ShapesWhoseActivationsOverflowAreRefused) {
  GptConfig c = *GptPreset("gpt2");
  c.block = 1 << 26;  // the largest block allowed (2^31 - 1 is now refused as a size)
  absl::Status s = ValidateRunShape(c, 2147483617, 64);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("activation elements: too large"), std::string::npos) << s;
  EXPECT_FALSE(EstimateTrainingMemory(c, 2147483617, 64).ok());
  EXPECT_FALSE(ValidateRunShape(*GptPreset("gpt2"), 1, 1 << 20).ok());  // seq > block
  EXPECT_TRUE(ValidateRunShape(*GptPreset("gpt2-xl"), 12, 1024).ok());  // bench.py's largest
}

}  // namespace
}  // namespace model
