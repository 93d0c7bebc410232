// gpt_decode's figures against accounting's formulas, worked by hand for test-tiny: tokens/s
// counts new tokens only over the decode steps' time, bytes per token are the weights once per
// step plus each stream's KV cache, the bound is bandwidth / bytes per token (the decode-bound
// estimate's formula), MFU = FLOPs / time / peak. Then a real CPU session end to end.
#include "macro/gpt_decode_session.h"

#include <cmath>
#include <string>

#include "accounting/estimates.h"
#include "accounting/gpt_flops.h"
#include "gtest/gtest.h"
#include "model/gpt_config.h"

namespace macro {
namespace {

// test-tiny: L=2, H=2, C=16, V=60 padded to 64, block 16, biases, tied.
// Parameters without wpe: wte 64*16 = 1024; per layer ln1 32 + qkv 768+48 + attproj 256+16 +
// ln2 32 + fc 1024+64 + fcproj 1024+16 = 3280; ln_f 32. N = 1024 + 2*3280 + 32 = 7616.
constexpr double kN = 7616;

Generation Gen(double prefill, std::vector<double> steps) {
  Generation g;
  g.prefill_s = prefill;
  g.step_s = std::move(steps);
  return g;
}

TEST(DecodeFigures, AgreeWithAccountingsFormulas) {
  const model::GptConfig config = *model::GptPreset("test-tiny");
  ASSERT_EQ(accounting::GptParamCount(model::ToGptShape(config), false), kN);
  // B=2 streams, P=4 prompt tokens, G=3 decode steps at positions 4, 5, 6; two generations.
  const int B = 2, P = 4, G = 3;
  const std::vector<Generation> gens = {Gen(0.010, {0.001, 0.002, 0.003}), Gen(0.030, {0.004, 0.002, 0.006})};
  auto f = ComputeDecodeFigures(config, 4, 4, B, P, G, gens, /*bandwidth=*/1e9, /*peak_flops=*/1e11);
  ASSERT_TRUE(f.ok()) << f.status();
  // tokens/s: new tokens only (2 x B x G = 12) over the decode steps' 0.018 s; prefill apart.
  EXPECT_DOUBLE_EQ(f->decode_tokens_per_s, 12 / 0.018);
  EXPECT_DOUBLE_EQ(f->prefill_tokens_per_s, 2 * B * P / 0.040);
  EXPECT_DOUBLE_EQ(f->step_ms_median, 2.5);  // of 1, 2, 2, 3, 4, 6 ms
  EXPECT_NEAR(f->step_ms_p90, 5.0, 1e-12);   // 4 + 0.5 * (6 - 4)
  // Bytes: weights (N + one wpe row) x 4 B once per step; KV cache 2*L*C*(pos+1) x 4 B per
  // stream: keys 5 + 6 + 7 = 18 over the three steps.
  const double weights = (kN + 16) * 4 * G;                        // 91584
  const double kv = 2.0 * 2 * 16 * 18 * 4 * B;                     // 9216
  EXPECT_DOUBLE_EQ(f->bytes_per_token, (weights + kv) / (B * G));  // 16800
  EXPECT_DOUBLE_EQ(f->bytes_per_token, 16800);
  EXPECT_DOUBLE_EQ(f->weight_bytes_per_token, weights / (B * G));
  EXPECT_DOUBLE_EQ(f->kv_bytes_per_token, kv / (B * G));
  // The bound: bandwidth / bytes per token, which is the decode-bound estimate of estimates.h.
  EXPECT_DOUBLE_EQ(f->bound_tokens_per_s, 1e9 / 16800);
  EXPECT_DOUBLE_EQ(f->bound_tokens_per_s, *accounting::DecodeTokensPerSecondBound(16800, 1, 1e9));
  EXPECT_DOUBLE_EQ(f->bound_fraction, (12 / 0.018) / (1e9 / 16800));
  EXPECT_DOUBLE_EQ(f->achieved_bytes_per_s, 16800 * 12 / 0.018);
  // FLOPs per token: 2N + 4*L*C*(pos+1), mean over positions 4..6; MFU over the peak.
  const double flops = 2 * kN + 4.0 * 2 * 16 * 18 / G;
  EXPECT_DOUBLE_EQ(f->flops_per_token, flops);
  EXPECT_NEAR(f->mfu, flops * (12 / 0.018) / 1e11, 1e-15);
}

TEST(DecodeFigures, BatchSharesTheWeightBytes) {
  const model::GptConfig config = *model::GptPreset("test-tiny");
  const std::vector<Generation> gens = {Gen(0.01, {0.001})};
  auto one = ComputeDecodeFigures(config, 4, 4, 1, 1, 1, gens, 1e9, 1e11);
  auto eight = ComputeDecodeFigures(config, 4, 4, 8, 1, 1, gens, 1e9, 1e11);
  ASSERT_TRUE(one.ok() && eight.ok());
  EXPECT_DOUBLE_EQ(eight->weight_bytes_per_token, one->weight_bytes_per_token / 8);
  EXPECT_DOUBLE_EQ(eight->kv_bytes_per_token, one->kv_bytes_per_token);
  EXPECT_DOUBLE_EQ(eight->decode_tokens_per_s, 8 * one->decode_tokens_per_s);
}

// Each generation held to the read roof of its own minutes: three generations of 1 step (B=1,
// 0.001 s: 1000 tokens/s) probed at 1, 4 and 2 GB/s, the cache's writes at 1 GB/s: the bounds
// are 1 / (reads / roof + writes / 1e9), the fractions 1000 / bound, the case's fraction their median and its bandwidth
// the roofs' median.
TEST(DecodeFigures, EachGenerationAgainstItsOwnProbedRoof) {
  const model::GptConfig config = *model::GptPreset("test-tiny");
  std::vector<Generation> gens = {Gen(0.01, {0.001}), Gen(0.01, {0.001}), Gen(0.01, {0.001})};
  gens[0].read_roof = 1e9;
  gens[1].read_roof = 4e9;
  gens[2].read_roof = 2e9;
  auto f = ComputeDecodeFigures(config, 4, 4, 1, 4, 1, gens, /*bandwidth=*/3e9, 1e11, /*write_bandwidth=*/1e9);
  ASSERT_TRUE(f.ok()) << f.status();
  const double reads = f->bytes_per_token, writes = f->kv_write_bytes_per_token;
  EXPECT_DOUBLE_EQ(writes, 2.0 * 2 * 16 * 4);  // 2 x L x C x 4 B
  auto fraction = [&](double roof) { return 1000 * (reads / roof + writes / 1e9); };
  EXPECT_EQ(f->roof_probes, 3);
  EXPECT_DOUBLE_EQ(f->bandwidth, 2e9);  // the probes' median, not the start-up 3e9
  EXPECT_DOUBLE_EQ(f->bound_tokens_per_s, 1 / (reads / 2e9 + writes / 1e9));
  EXPECT_NEAR(f->bound_fraction, fraction(2e9), 1e-12);
  EXPECT_NEAR(f->bound_fraction_min, fraction(4e9), 1e-12);
  EXPECT_NEAR(f->bound_fraction_max, fraction(1e9), 1e-12);
  // A generation without a probe: none is used (all or none), the start-up bandwidth stands.
  gens[1].read_roof = 0;
  f = ComputeDecodeFigures(config, 4, 4, 1, 4, 1, gens, 3e9, 1e11, 1e9);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->roof_probes, 0);
  EXPECT_DOUBLE_EQ(f->bandwidth, 3e9);
}

TEST(DecodeFigures, BadInputsAreErrors) {
  const model::GptConfig config = *model::GptPreset("test-tiny");
  EXPECT_FALSE(ComputeDecodeFigures(config, 4, 4, 1, 1, 1, {}, 1e9, 1e11).ok());
  EXPECT_FALSE(ComputeDecodeFigures(config, 4, 4, 1, 1, 2, {Gen(0.01, {0.001})}, 1e9, 1e11).ok());
  EXPECT_FALSE(ComputeDecodeFigures(config, 4, 4, 1, 1, 1, {Gen(0.01, {0.0})}, 1e9, 1e11).ok());
  EXPECT_FALSE(ComputeDecodeFigures(config, 4, 4, 1, 1, 1, {Gen(0.0, {0.001})}, 1e9, 1e11).ok());
  EXPECT_FALSE(ComputeDecodeFigures(config, 4, 4, 1, 1, 1, {Gen(0.01, {0.001})}, 0, 1e11).ok());
  EXPECT_FALSE(ComputeDecodeFigures(config, 4, 4, 1, 1, 1, {Gen(0.01, {0.001})}, 1e9, 0).ok());
  // Positions beyond the block: P + G = 17 > 16.
  EXPECT_FALSE(ComputeDecodeFigures(config, 4, 4, 1, 16, 1, {Gen(0.01, {0.001})}, 1e9, 1e11).ok());
}

TEST(DecodeFigures, Percentile) {
  EXPECT_DOUBLE_EQ(Percentile({3}, 90), 3);
  EXPECT_DOUBLE_EQ(Percentile({5, 1, 3}, 50), 3);
  EXPECT_DOUBLE_EQ(Percentile({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90), 9.1);
  EXPECT_DOUBLE_EQ(Percentile({1, 2}, 0), 1);
  EXPECT_DOUBLE_EQ(Percentile({1, 2}, 100), 2);
}

TEST(DecodeFigures, WeightsUnderFourTimesTheLastLevelCacheGetANote) {
  const int64_t MiB = int64_t{1} << 20;
  // gpt2's int8 weights (131.7 MB a step) on the Intel VM (480 MiB reported); its fp32 weights
  // (494.8 MB) on a Zen 3 (32 MiB).
  const std::string note = WeightsInCacheNote(131.7e6, 480 * MiB);
  EXPECT_NE(note.find("131.7 MB"), std::string::npos) << note;
  EXPECT_NE(note.find("480 MiB"), std::string::npos) << note;
  EXPECT_EQ(WeightsInCacheNote(494.8e6, 32 * MiB), "");
  // At the edge: exactly 4x is not under it; unknown cache size: no note.
  EXPECT_EQ(WeightsInCacheNote(4.0 * 32 * MiB, 32 * MiB), "");
  EXPECT_NE(WeightsInCacheNote(4.0 * 32 * MiB - 1, 32 * MiB), "");
  EXPECT_EQ(WeightsInCacheNote(1e6, 0), "");
}

TEST(DecodeSession, CpuGenerationsAreTimedAndRepeatable) {
  RawStepFlags s;
  s.preset = "test-tiny";
  s.threads = 1;
  s.batch = 3;
  RawDecodeFlags d;
  d.prompt = 5;
  d.generate = 6;
  d.given = {"batch"};
  sysinfo::CudaInventory no_gpu;
  no_gpu.reason = "test";
  auto o = ResolveDecodeOptions(s, d, no_gpu);
  ASSERT_TRUE(o.ok()) << o.status();
  auto session = DecodeSession::Create(*o);
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_GT((*session)->bandwidth(), 0);
  EXPECT_GT((*session)->peak().flops_per_s, 0);
  EXPECT_NE((*session)->bandwidth_source().find("STREAM copy"), std::string::npos)
      << (*session)->bandwidth_source();
  auto decoder = (*session)->Decoder(3);
  ASSERT_TRUE(decoder.ok()) << decoder.status();
  EXPECT_EQ((*decoder)->B(), 3);
  const std::vector<int32_t> prompt = DecodePrompt(o->step.config, 3, 5, o->step.seed);
  ASSERT_EQ(prompt.size(), 15u);
  std::vector<Generation> gens;
  for (int i = 0; i < 2; ++i) {
    auto g = RunGeneration(*decoder, prompt, 5, 6);
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_TRUE(g->finite);
    EXPECT_GT(g->prefill_s, 0);
    ASSERT_EQ(g->step_s.size(), 6u);
    ASSERT_EQ(g->tokens.size(), 18u);
    for (int32_t t : g->tokens) EXPECT_TRUE(t >= 0 && t < o->step.config.vocab) << t;
    gens.push_back(*g);
  }
  EXPECT_EQ(gens[0].tokens, gens[1].tokens);  // greedy, same prompt: the same text
  EXPECT_EQ((*decoder)->position(), 11);
  auto f = ComputeDecodeFigures(o->step.config, (*session)->bytes_per_param(), (*session)->bytes_per_kv(), 3,
                                5, 6, gens, (*session)->bandwidth(), (*session)->peak().flops_per_s);
  ASSERT_TRUE(f.ok()) << f.status();
  double decode = 0;
  for (const Generation& g : gens) {
    for (double t : g.step_s) decode += t;
  }
  EXPECT_NEAR(f->decode_tokens_per_s, 2 * 3 * 6 / decode, 1e-9 * f->decode_tokens_per_s);
  // A second batch size replaces the decoder.
  auto other = (*session)->Decoder(1);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ((*other)->B(), 1);
}

}  // namespace
}  // namespace macro
