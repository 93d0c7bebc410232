// GPT parameter count and FLOPs per token/sequence/step, both attention conventions, crop and
// recompute (MFU vs HFU).
#include "accounting/gpt_flops.h"

#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace accounting {
namespace {

GptShape Gpt2Small(int64_t vocab = 50257, bool bias = true) {
  return GptShape{/*layers=*/12, /*heads=*/12, /*width=*/768, vocab, /*block=*/1024, bias};
}

// Independent count: nanoGPT's named parameters, tensor by tensor.
int64_t EnumerateParams(const GptShape& s, bool wpe) {
  const int64_t C = s.width;
  std::vector<std::pair<int64_t, bool>> tensors;  // (numel, is_bias)
  tensors.push_back({s.vocab * C, false});        // transformer.wte (= lm_head.weight)
  if (wpe) tensors.push_back({s.block * C, false});
  for (int l = 0; l < s.layers; ++l) {
    tensors.push_back({C, false});          // ln_1.weight
    tensors.push_back({C, true});           // ln_1.bias
    tensors.push_back({C * 3 * C, false});  // attn.c_attn.weight
    tensors.push_back({3 * C, true});       // attn.c_attn.bias
    tensors.push_back({C * C, false});      // attn.c_proj.weight
    tensors.push_back({C, true});           // attn.c_proj.bias
    tensors.push_back({C, false});          // ln_2.weight
    tensors.push_back({C, true});           // ln_2.bias
    tensors.push_back({C * 4 * C, false});  // mlp.c_fc.weight
    tensors.push_back({4 * C, true});       // mlp.c_fc.bias
    tensors.push_back({4 * C * C, false});  // mlp.c_proj.weight
    tensors.push_back({C, true});           // mlp.c_proj.bias
  }
  tensors.push_back({C, false});  // ln_f.weight
  tensors.push_back({C, true});   // ln_f.bias
  int64_t n = 0;
  for (auto [numel, is_bias] : tensors) {
    if (!is_bias || s.bias) n += numel;
  }
  return n;
}

TEST(GptParams, Gpt2SmallIs124M) {
  EXPECT_EQ(GptParamCount(Gpt2Small(), true), 124439808);  // HF gpt2: 124,439,808
  // nanoGPT (vocab 50304) prints "number of parameters: 123.69M" (without wpe).
  EXPECT_EQ(GptParamCount(Gpt2Small(50304), false), 123689472);
}

TEST(GptParams, MatchesATensorByTensorCount) {
  for (bool bias : {true, false}) {
    for (GptShape s : {Gpt2Small(50304, bias), GptShape{2, 2, 64, 100, 32, bias},
                       GptShape{48, 25, 1600, 50257, 1024, bias}}) {
      for (bool wpe : {true, false}) {
        EXPECT_EQ(GptParamCount(s, wpe), EnumerateParams(s, wpe))
            << "L=" << s.layers << " C=" << s.width << " bias=" << bias << " wpe=" << wpe;
      }
    }
  }
  // bias=False removes exactly 11C per layer (3C+C+4C+C linear, 2C LN) + C (ln_f).
  EXPECT_EQ(GptParamCount(Gpt2Small(50304, true), false) - GptParamCount(Gpt2Small(50304, false), false),
            12 * 11 * 768 + 768);
}

TEST(GptFlops, NanoGptFormula) {
  GptShape s = Gpt2Small(50304);
  const double n = 123689472;
  const double L = 12, H = 12, Q = 768 / 12, T = 1024;
  // nanoGPT estimate_mfu: 6N + 12*L*H*Q*T.
  EXPECT_DOUBLE_EQ(TrainFlopsPerToken(s, 1024, AttentionConvention::kFull), 6 * n + 12 * L * H * Q * T);
  EXPECT_DOUBLE_EQ(TrainFlopsPerToken(s, 1024, AttentionConvention::kCausalHalved), 6 * n + 6 * L * 768 * T);
  EXPECT_DOUBLE_EQ(ForwardFlopsPerToken(s, 1024, AttentionConvention::kFull), 2 * n + 4 * L * 768 * T);
  EXPECT_EQ(ConventionName(AttentionConvention::kFull), "full");
  EXPECT_EQ(ConventionName(AttentionConvention::kCausalHalved), "causal-halved");
}

TEST(GptFlops, CropUsesTheActualSequenceLength) {
  GptShape s = Gpt2Small(50304);
  absl::StatusOr<StepFlops> full = GptStepFlops(s, 1024, 1, 1, AttentionConvention::kFull);
  absl::StatusOr<StepFlops> crop = GptStepFlops(s, 256, 1, 1, AttentionConvention::kFull);
  ASSERT_TRUE(full.ok() && crop.ok());
  EXPECT_EQ(crop->seq, 256);
  EXPECT_DOUBLE_EQ(crop->model_flops_per_token, TrainFlopsPerToken(s, 256, AttentionConvention::kFull));
  // The attention term shrinks with T; the 6N part per token does not.
  EXPECT_DOUBLE_EQ(full->model_flops_per_token - crop->model_flops_per_token, 12.0 * 12 * 768 * (1024 - 256));
  EXPECT_DOUBLE_EQ(crop->model_flops_per_sequence, crop->model_flops_per_token * 256);
}

TEST(GptFlops, StepTotalsAndRecompute) {
  GptShape s = Gpt2Small(50304, false);
  absl::StatusOr<StepFlops> f =
      GptStepFlops(s, 1024, /*batch=*/12, /*grad_accum=*/5, AttentionConvention::kFull, Recompute::kFull);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->tokens, 12 * 1024 * 5);
  EXPECT_DOUBLE_EQ(f->model_flops_per_step, f->model_flops_per_token * 12 * 1024 * 5);
  // Recompute adds one forward (1/3 of fwd+bwd): HFU counts 4/3 of what MFU counts.
  EXPECT_DOUBLE_EQ(f->hardware_flops_per_step / f->model_flops_per_step, 4.0 / 3.0);
  EXPECT_NE(f->Describe().find("full (12*L*C*T)"), std::string::npos) << f->Describe();
  absl::StatusOr<StepFlops> none = GptStepFlops(s, 1024, 12, 5, AttentionConvention::kFull);
  EXPECT_DOUBLE_EQ(none->hardware_flops_per_step, none->model_flops_per_step);
}

TEST(GptFlops, BadShapesAreErrorsNamingTheValue) {
  GptShape s = Gpt2Small();
  absl::StatusOr<StepFlops> long_seq = GptStepFlops(s, 2048, 1, 1, AttentionConvention::kFull);
  ASSERT_FALSE(long_seq.ok());
  EXPECT_NE(long_seq.status().message().find("seq=2048"), std::string::npos);
  EXPECT_NE(long_seq.status().message().find("1024"), std::string::npos);
  s.heads = 7;
  absl::Status st = ValidateGptShape(s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("heads=7"), std::string::npos) << st;
  s.heads = 12;
  s.layers = 0;
  EXPECT_FALSE(ValidateGptShape(s).ok());
  EXPECT_FALSE(GptStepFlops(Gpt2Small(), 1024, 0, 1, AttentionConvention::kFull).ok());
  EXPECT_FALSE(GptStepFlops(Gpt2Small(), 1024, 1, 0, AttentionConvention::kFull).ok());
}

}  // namespace
}  // namespace accounting
