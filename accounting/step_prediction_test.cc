#include "accounting/step_prediction.h"

#include "gtest/gtest.h"

namespace accounting {
namespace {

// A small GPT-2-shaped model whose bytes are counted by hand below: L=2, H=2, C=8 (hd 4), F=32,
// Vp=64, block 16; B=3, T=4: N=12 tokens, A = 3*2*4*4 = 96 scores.
GptShape Small() {
  GptShape s;
  s.layers = 2;
  s.heads = 2;
  s.width = 8;
  s.vocab = 64;
  s.block = 16;
  return s;
}

double OpBytes(const StepTraffic& t, const std::string& name) {
  for (const auto& [n, b] : t.ops) {
    if (n == name) return b;
  }
  return -1;
}

TEST(MemoryOpsTraffic, CountsEachOpsTensorsOnceByHand) {
  auto t = MemoryOpsTraffic(Small(), 3, 4);
  ASSERT_TRUE(t.ok()) << t.status();
  const double n = 12, c = 8, f = 32, a = 96, layers = 2;
  EXPECT_DOUBLE_EQ(OpBytes(*t, "norms and residuals"), 4 * (layers * 22 * n * c + 6 * n * c));
  EXPECT_DOUBLE_EQ(OpBytes(*t, "attention softmax"), 4 * layers * 5 * a);
  EXPECT_DOUBLE_EQ(OpBytes(*t, "GeLU"), 4 * layers * 5 * n * f);
  EXPECT_DOUBLE_EQ(OpBytes(*t, "bias sums"), 4 * layers * n * (3 * c + c + f + c));
  EXPECT_DOUBLE_EQ(OpBytes(*t, "embeddings"), 4 * 8 * n * c);
  EXPECT_DOUBLE_EQ(OpBytes(*t, "cross-entropy"), 4 * 3 * n * 64);
  EXPECT_EQ(OpBytes(*t, "RoPE"), -1);  // learned positions
  // Per layer C x 3C + C x C + 2 x C x F, and the classifier's Vp x C; read twice, written once.
  const double weights = layers * (c * 3 * c + c * c + 2 * c * f) + 64 * c;
  EXPECT_DOUBLE_EQ(LinearWeightCount(Small()), weights);
  EXPECT_DOUBLE_EQ(OpBytes(*t, "Linear weights from memory"), 4 * 3 * weights);
  EXPECT_DOUBLE_EQ(t->weight_bytes, 4 * 3 * weights);
  double sum = 0;
  for (const auto& op : t->ops) sum += op.second;
  EXPECT_DOUBLE_EQ(t->bytes, sum);
  // The per-head products, full square: the attention term of the FLOP formula, 12*L*C*T a token.
  EXPECT_DOUBLE_EQ(t->attention_flops, AttentionTrainFlopsPerToken(Small(), 4, AttentionConvention::kFull) * n);
}

TEST(MemoryOpsTraffic, LlamaSwitchesChangeTheirOps) {
  GptShape s = Small();
  s.swiglu = true;
  s.rmsnorm = true;
  s.bias = false;
  s.learned_positions = false;
  s.kv_heads = 1;
  auto t = MemoryOpsTraffic(s, 3, 4);
  ASSERT_TRUE(t.ok()) << t.status();
  const double n = 12, c = 8, f = 32, layers = 2;
  EXPECT_DOUBLE_EQ(OpBytes(*t, "SwiGLU"), 4 * layers * 8 * n * f);
  EXPECT_DOUBLE_EQ(OpBytes(*t, "RoPE"), 4 * layers * 2 * 2 * n * (c + 1 * 4));
  EXPECT_EQ(OpBytes(*t, "bias sums"), -1);
  EXPECT_EQ(OpBytes(*t, "GeLU"), -1);
  // SwiGLU's three matrices, the K/V projections of one head (hd 4): QKV = 8 + 2 * 4 = 16.
  EXPECT_DOUBLE_EQ(LinearWeightCount(s), layers * (c * 16 + c * c + 3 * c * f) + 64 * c);
}

TEST(MemoryOpsTraffic, RecomputeAddsWhatItRunsAgain) {
  auto none = MemoryOpsTraffic(Small(), 3, 4);
  auto act = MemoryOpsTraffic(Small(), 3, 4, Recompute::kActivation);
  auto att = MemoryOpsTraffic(Small(), 3, 4, Recompute::kAttention);
  auto block = MemoryOpsTraffic(Small(), 3, 4, Recompute::kBlock);
  ASSERT_TRUE(none.ok() && act.ok() && att.ok() && block.ok());
  const double n = 12, c = 8, f = 32, a = 96, layers = 2;
  EXPECT_DOUBLE_EQ(act->bytes - none->bytes, 4 * layers * 2 * n * f);
  EXPECT_DOUBLE_EQ(att->bytes - none->bytes, 4 * layers * 2 * a);
  const double block_weights = layers * (c * 3 * c + c * c + 2 * c * f);  // read again by the recompute
  EXPECT_DOUBLE_EQ(block->bytes - none->bytes, 4 * layers * (8 * n * c + 2 * a + 2 * n * f) + 4 * block_weights);
  EXPECT_DOUBLE_EQ(act->attention_flops, none->attention_flops);
  EXPECT_DOUBLE_EQ(att->attention_flops, none->attention_flops * 4 / 3);
  EXPECT_DOUBLE_EQ(block->attention_flops, none->attention_flops * 4 / 3);
}

TEST(MemoryOpsTraffic, RefusesBadSizes) {
  EXPECT_FALSE(MemoryOpsTraffic(Small(), 0, 4).ok());
  EXPECT_FALSE(MemoryOpsTraffic(Small(), 1, 17).ok());
  EXPECT_FALSE(MemoryOpsTraffic(Small(), 1, 0).ok());
  GptShape bad = Small();
  bad.heads = 3;  // does not divide 8
  EXPECT_FALSE(MemoryOpsTraffic(bad, 1, 4).ok());
}

TEST(PredictStep, SumsEachTermAtItsRate) {
  StepPredictionInput in;
  in.gemm_seconds_at_rates = 0.4;
  in.gemm_flops = 4.8e10;  // 120 GFLOP/s
  in.traffic.bytes = 3e9;
  in.traffic.attention_flops = 1.2e9;
  in.triad_bytes_per_s = 30e9;
  in.adamw_bytes = 124475904.0 * 28;
  in.adamw_bytes_per_s = 35e9;
  auto p = PredictStep(in);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_DOUBLE_EQ(p->gemm_seconds, 0.4);
  EXPECT_NEAR(p->attention_seconds, 0.01, 1e-15);
  EXPECT_NEAR(p->memory_ops_seconds, 0.1, 1e-15);
  EXPECT_NEAR(p->adamw_seconds, 124475904.0 * 28 / 35e9, 1e-15);
  EXPECT_NEAR(p->seconds, 0.4 + 0.01 + 0.1 + 124475904.0 * 28 / 35e9, 1e-12);
}

TEST(PredictStep, ErrorsNameTheField) {
  StepPredictionInput in;
  in.gemm_seconds_at_rates = 0.4;
  in.gemm_flops = 4.8e10;
  in.triad_bytes_per_s = 30e9;
  in.adamw_bytes_per_s = 0;
  auto p = PredictStep(in);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("adamw_bytes_per_s"), std::string::npos);
  in.adamw_bytes_per_s = 35e9;
  in.traffic.bytes = -1;
  p = PredictStep(in);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("traffic.bytes"), std::string::npos);
}

}  // namespace
}  // namespace accounting
