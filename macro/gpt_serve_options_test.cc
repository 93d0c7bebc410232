// gpt_serve's option resolution (gpt_serve_options.h): the defaults, the CPU only, and every
// error naming its flag.
#include "macro/gpt_serve_options.h"

#include <cmath>

#include "gtest/gtest.h"
#include "macro/options_test_util.h"

namespace macro {
namespace {

absl::StatusOr<ServeOptions> Resolve(RawServeFlags f, RawStepFlags s = {}, bool gpu = false) {
  return ResolveServeOptions(s, f, gpu ? OneGpu(9) : NoGpu());
}

TEST(GptServeOptions, Defaults) {
  auto o = Resolve({});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->step.device, "cpu");
  EXPECT_EQ(o->step.config.name, "gpt2");
  EXPECT_EQ(o->requests, 200);
  EXPECT_TRUE(std::isinf(o->rate));
  EXPECT_EQ(o->prompt.lo, 16);
  EXPECT_EQ(o->prompt.hi, 128);
  EXPECT_EQ(o->generate.hi, 64);
  EXPECT_EQ(o->max_batch, 8);
  EXPECT_EQ(o->max_prompt(), 128);
  EXPECT_EQ(o->max_positions(), 192);
  EXPECT_EQ(o->weights, model::WeightFormat::kFp32);
  EXPECT_FALSE(o->find_max_rate);
  // With a GPU present, still the CPU.
  auto g = Resolve({}, {}, true);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->step.device, "cpu");
}

TEST(GptServeOptions, FindMaxRate) {
  RawServeFlags f;
  f.find_max_rate = true;
  f.ttft_limit_ms = 2000;
  f.find_range = "0.5:4";
  auto o = Resolve(f);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_DOUBLE_EQ(o->find_low, 0.5);
  EXPECT_DOUBLE_EQ(o->find_high, 4);
  EXPECT_EQ(o->find_steps, 5);
}

TEST(GptServeOptions, ErrorsNameTheFlag) {
  auto with = [](auto set) {
    RawServeFlags f;
    set(f);
    return Resolve(f);
  };
  ExpectErrorNames(with([](RawServeFlags& f) { f.given = {"batch"}; }), "--batch: gpt_serve's streams are --max_batch");
  ExpectErrorNames(with([](RawServeFlags& f) { f.given = {"dtype"}; }), "--dtype: gpt_serve's weights are --weights");
  ExpectErrorNames(with([](RawServeFlags& f) { f.given = {"lr"}; }), "--lr: a flag of gpt_step");
  RawStepFlags cuda;
  cuda.device = "cuda";
  ExpectErrorNames(Resolve({}, cuda, true), "--device: cuda: gpt_serve runs on the CPU only");
  ExpectErrorNames(with([](RawServeFlags& f) { f.requests = 0; }), "--requests: 0 is out of range");
  ExpectErrorNames(with([](RawServeFlags& f) { f.rate = "fast"; }), "--rate=fast: not a rate");
  ExpectErrorNames(with([](RawServeFlags& f) { f.prompt = "16:2000"; }), "--prompt=16:2000: 2000 is above 1023");
  ExpectErrorNames(with([](RawServeFlags& f) { f.generate = "0"; }), "--generate=0: 0 is below 1");
  ExpectErrorNames(with([](RawServeFlags& f) {
                     f.prompt = "1000";
                     f.generate = "30";
                   }),
                   "30 is above 24");
  ExpectErrorNames(with([](RawServeFlags& f) { f.max_batch = 0; }), "--max_batch: 0 is out of range; allowed: 1 to 256");
  ExpectErrorNames(with([](RawServeFlags& f) { f.ttft_limit_ms = -1; }), "--ttft_limit_ms: -1 ms");
  ExpectErrorNames(with([](RawServeFlags& f) { f.tpot_limit_ms = NAN; }), "--tpot_limit_ms: nan ms");
  ExpectErrorNames(with([](RawServeFlags& f) { f.find_max_rate = true; }), "--find_max_rate: give the limits");
  ExpectErrorNames(with([](RawServeFlags& f) {
                     f.find_max_rate = true;
                     f.tpot_limit_ms = 100;
                     f.given = {"rate"};
                   }),
                   "drop --rate");
  ExpectErrorNames(with([](RawServeFlags& f) {
                     f.find_max_rate = true;
                     f.tpot_limit_ms = 100;
                     f.compare_serial = true;
                   }),
                   "either --find_max_rate or --compare_serial");
  ExpectErrorNames(with([](RawServeFlags& f) {
                     f.find_max_rate = true;
                     f.tpot_limit_ms = 100;
                     f.find_range = "4:1";
                   }),
                   "--find_range: '4:1': give LOW:HIGH");
  ExpectErrorNames(with([](RawServeFlags& f) {
                     f.find_max_rate = true;
                     f.tpot_limit_ms = 100;
                     f.find_steps = 0;
                   }),
                   "--find_steps: 0 is out of range");
  ExpectErrorNames(with([](RawServeFlags& f) { f.trial_max_s = 0; }), "--trial_max_s: 0 s");
  ExpectErrorNames(with([](RawServeFlags& f) { f.weights = "int4"; }),
                   "--weights: 'int4' is not a weight format; allowed: fp32, bf16, int8");
  ExpectErrorNames(with([](RawServeFlags& f) { f.progress_s = -1; }), "--progress_s: -1 s");
  RawStepFlags bad_preset;
  bad_preset.preset = "nope";
  ExpectErrorNames(Resolve({}, bad_preset), "nope");
}

}  // namespace
}  // namespace macro
