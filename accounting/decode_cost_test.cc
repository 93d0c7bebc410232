// Decode bytes, FLOPs and bound: closed forms on GPT-2 124M, the sum over a run, the batch
// dividing the weights, and the reduction to estimates.h's decode bound.
#include "accounting/decode_cost.h"

#include "accounting/estimates.h"
#include "gtest/gtest.h"

namespace accounting {
namespace {

// GPT-2 124M with the vocabulary padded to 50304, as the model's buffers.
GptShape Gpt2() {
  return GptShape{/*layers=*/12, /*heads=*/12, /*width=*/768, /*vocab=*/50304, /*block=*/1024};
}

TEST(DecodeCost, WeightBytesAreEveryParameterButTheOtherPositionRows) {
  // GPT-2 124M with the padded vocab: 123,689,472 parameters without wpe (124,475,904 with it); + one wpe
  // row.
  const double n = 123689472;
  ASSERT_EQ(GptParamCount(Gpt2(), false), 123689472);
  absl::StatusOr<double> w = DecodeWeightBytes(Gpt2(), 4);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_DOUBLE_EQ(*w, (n + 768) * 4);
}

// int8 weight-only, worked by hand for GPT-2 124M (V = 50304): the matmul weights are 12 layers x
// (2304 + 768 + 3072) x 768 + 768 x 3072 = 84,934,656, plus the LM head 50304 x 768 = 38,633,472:
// 123,568,128 bytes of int8; their output rows 12 x (2304 + 768 + 3072 + 768) + 50304 = 133,248
// fp32 scales, 532,992 bytes; the rest of N (norms and biases: 123,689,472 - 123,568,128 =
// 121,344) in fp32, 485,376 bytes; the token's wte and wpe rows in fp32, 6,144 bytes. 124,592,640
// bytes a step, 3.97x fewer than fp32's.
TEST(DecodeCost, Int8WeightsAreOneByteEachPlusScalesAndTheFp32Rest) {
  EXPECT_EQ(MatmulWeightCount(Gpt2()), 123568128);
  EXPECT_EQ(MatmulOutputRows(Gpt2()), 133248);
  absl::StatusOr<double> w = DecodeWeightBytes(Gpt2(), DecodeWeights::Int8());
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_DOUBLE_EQ(*w, 123568128.0 + 532992 + 485376 + 6144);
  EXPECT_DOUBLE_EQ(*w, 124592640.0);
  EXPECT_NEAR(*DecodeWeightBytes(Gpt2(), 4) / *w, 3.971, 0.001);
  // The step's cost takes them as its weights; the cache stays as given.
  absl::StatusOr<DecodeCost> c = DecodeStepCost(Gpt2(), DecodeWeights::Int8(), 4, 1, 99);
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->weight_bytes, 124592640.0);
  EXPECT_DOUBLE_EQ(c->kv_bytes, 2.0 * 12 * 768 * 100 * 4);
  EXPECT_DOUBLE_EQ(c->flops_per_token(), 2 * 123689472.0 + 4.0 * 12 * 768 * 100);

  // llama-tiny's shape (SwiGLU, 2 of 4 heads for K/V, untied, no biases, RoPE): per layer qkv 64
  // x 32, attproj 32 x 32, gate|up 128 x 32, down 32 x 64, and the head 64 x 32: 20,480 int8;
  // 2 x (64 + 32 + 128 + 32) + 64 = 576 scales; 160 norm weights; the wte row alone (no wpe).
  GptShape llama{/*layers=*/2, /*heads=*/4, /*width=*/32, /*vocab=*/64, /*block=*/64};
  llama.bias = false;
  llama.kv_heads = 2;
  llama.mlp_hidden = 64;
  llama.swiglu = llama.rmsnorm = true;
  llama.learned_positions = llama.tied = false;
  EXPECT_EQ(MatmulWeightCount(llama), 20480);
  EXPECT_EQ(MatmulOutputRows(llama), 576);
  EXPECT_DOUBLE_EQ(*DecodeWeightBytes(llama, DecodeWeights::Int8()), 20480.0 + 4 * 576 + 4 * 160 + 4 * 32);
}

// bf16 weight-only (the CPU decoder's bf16 copy): GPT-2 124M's 123,568,128 matmul weights at 2
// bytes, no scales, the 121,344 norm and bias parameters and the token's wte and wpe rows (1,536
// values) in fp32: 247,136,256 + 485,376 + 6,144 = 247,627,776 bytes a step, against bf16
// everywhere's (123,689,472 + 768) x 2 = 247,380,480.
TEST(DecodeCost, Bf16WeightOnlyIsTwoBytesAMatmulWeightAndTheFp32Rest) {
  absl::StatusOr<double> w = DecodeWeightBytes(Gpt2(), DecodeWeights::Bf16WeightOnly());
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_DOUBLE_EQ(*w, 2 * 123568128.0 + 485376 + 6144);
  EXPECT_DOUBLE_EQ(*w, 247627776.0);
  EXPECT_DOUBLE_EQ(*DecodeWeightBytes(Gpt2(), 2), 247380480.0);
  // int8 is the same rule at 1 byte with the scales.
  EXPECT_DOUBLE_EQ(*DecodeWeightBytes(Gpt2(), DecodeWeights::WeightOnly(1, true)),
                   *DecodeWeightBytes(Gpt2(), DecodeWeights::Int8()));
}

TEST(DecodeCost, OneStepAtPositionReadsWeightsAndTheCacheUpToIt) {
  // fp32, position 99: keys and values of 100 positions in 12 layers of width 768.
  absl::StatusOr<DecodeCost> c = DecodeStepCost(Gpt2(), 4, 4, 1, 99);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_DOUBLE_EQ(c->weight_bytes, (123689472.0 + 768) * 4);
  EXPECT_DOUBLE_EQ(c->kv_bytes, 2.0 * 12 * 768 * 100 * 4);
  EXPECT_DOUBLE_EQ(c->bytes_per_token(), c->weight_bytes + c->kv_bytes);
  EXPECT_DOUBLE_EQ(c->flops_per_token(), 2 * 123689472.0 + 4.0 * 12 * 768 * 100);
}

TEST(DecodeCost, BatchSharesTheWeightsNotTheCache) {
  absl::StatusOr<DecodeCost> one = DecodeStepCost(Gpt2(), 2, 2, 1, 511);
  absl::StatusOr<DecodeCost> eight = DecodeStepCost(Gpt2(), 2, 2, 8, 511);
  ASSERT_TRUE(one.ok() && eight.ok());
  EXPECT_DOUBLE_EQ(eight->weight_bytes, one->weight_bytes);
  EXPECT_DOUBLE_EQ(eight->kv_bytes, 8 * one->kv_bytes);
  EXPECT_DOUBLE_EQ(eight->bytes_per_token(), one->weight_bytes / 8 + one->kv_bytes);
  EXPECT_DOUBLE_EQ(eight->flops_per_token(), one->flops_per_token());
}

TEST(DecodeCost, RunIsTheSumOfItsSteps) {
  const int64_t first = 64, steps = 37, batch = 3;
  absl::StatusOr<DecodeCost> run = DecodeRunCost(Gpt2(), 4, 4, batch, first, steps);
  ASSERT_TRUE(run.ok()) << run.status();
  double bytes = 0, flops = 0;
  for (int64_t p = first; p < first + steps; ++p) {
    absl::StatusOr<DecodeCost> s = DecodeStepCost(Gpt2(), 4, 4, batch, p);
    ASSERT_TRUE(s.ok());
    bytes += s->bytes();
    flops += s->flops;
  }
  EXPECT_DOUBLE_EQ(run->bytes(), bytes);
  EXPECT_DOUBLE_EQ(run->flops, flops);
  EXPECT_DOUBLE_EQ(run->tokens(), batch * steps);
  EXPECT_DOUBLE_EQ(run->bytes_per_token(), bytes / (batch * steps));
}

TEST(DecodeCost, BoundIsEstimatesDecodeBoundOverTheTokensBytes) {
  absl::StatusOr<DecodeCost> c = DecodeStepCost(Gpt2(), 4, 4, 1, 0);
  ASSERT_TRUE(c.ok());
  absl::StatusOr<double> bound = DecodeBoundTokensPerSecond(*c, 50e9);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_DOUBLE_EQ(*bound, 50e9 / c->bytes_per_token());
  // Without the cache (and the wpe row) it is //tools:estimate decode-bound's figure.
  DecodeCost weights_only = *c;
  weights_only.kv_bytes = 0;
  weights_only.weight_bytes = 123689472.0 * 4;
  EXPECT_DOUBLE_EQ(*DecodeBoundTokensPerSecond(weights_only, 50e9),
                   *DecodeTokensPerSecondBound(123689472.0, 4, 50e9));
  // 8 streams: all of them together go ~8x as fast at position 0 (weights dominate).
  absl::StatusOr<DecodeCost> c8 = DecodeStepCost(Gpt2(), 4, 4, 8, 0);
  EXPECT_NEAR(*DecodeBoundTokensPerSecond(*c8, 50e9) / *bound, 8, 0.01);
}

// GPT-2 124M writes 2 x 12 x 768 fp32 keys and values a token (73,728 bytes): counted at the write
// roof, beside the reads at the read roof.
TEST(DecodeCost, CacheWritesAreCountedAsWrites) {
  absl::StatusOr<DecodeCost> c = DecodeStepCost(Gpt2(), 4, 4, 1, 10);
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->kv_write_bytes, 2.0 * 12 * 768 * 4);
  EXPECT_DOUBLE_EQ(c->write_bytes_per_token(), 73728);
  absl::StatusOr<double> bound = DecodeBoundTokensPerSecond(*c, 40e9, 20e9);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_DOUBLE_EQ(*bound, 1 / (c->bytes_per_token() / 40e9 + 73728 / 20e9));
  // The writes move it by under 0.1%.
  EXPECT_GT(*bound / *DecodeBoundTokensPerSecond(*c, 40e9), 0.999);
  // 4 streams over 3 steps: 12 tokens' writes.
  absl::StatusOr<DecodeCost> run = DecodeRunCost(Gpt2(), 4, 2, 4, 5, 3);
  ASSERT_TRUE(run.ok());
  EXPECT_DOUBLE_EQ(run->kv_write_bytes, 12 * 2.0 * 12 * 768 * 2);
  EXPECT_FALSE(DecodeBoundTokensPerSecond(*c, 40e9, 0).ok());
  EXPECT_FALSE(DecodeBoundTokensPerSecond(*c, 0, 20e9).ok());
}

TEST(DecodeCost, ErrorsNameTheValue) {
  auto has = [](const absl::Status& s, const char* text) {
    return std::string(s.message()).find(text) != std::string::npos;
  };
  EXPECT_TRUE(has(DecodeStepCost(Gpt2(), 4, 4, 0, 0).status(), "batch=0"));
  EXPECT_TRUE(has(DecodeStepCost(Gpt2(), 0, 4, 1, 0).status(), "bytes_per_param=0"));
  EXPECT_TRUE(has(DecodeStepCost(Gpt2(), 4, -2, 1, 0).status(), "bytes_per_kv_element=-2"));
  EXPECT_TRUE(has(DecodeStepCost(Gpt2(), 4, 4, 1, 1024).status(), "outside the block"));
  EXPECT_TRUE(has(DecodeRunCost(Gpt2(), 4, 4, 1, 1000, 30).status(), "outside the block"));
  EXPECT_TRUE(has(DecodeRunCost(Gpt2(), 4, 4, 1, 0, 0).status(), "steps=0"));
  DecodeCost zero;
  EXPECT_FALSE(DecodeBoundTokensPerSecond(zero, 50e9).ok());
  absl::StatusOr<DecodeCost> c = DecodeStepCost(Gpt2(), 4, 4, 1, 0);
  EXPECT_FALSE(DecodeBoundTokensPerSecond(*c, 0).ok());
}

}  // namespace
}  // namespace accounting
