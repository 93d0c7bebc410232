// gpt_decode's defaults per device and its flag errors (each names the flag).
#include "macro/gpt_decode_options.h"

#include "gtest/gtest.h"
#include "macro/options_test_util.h"

namespace macro {
namespace {

bool HasChoice(const DecodeOptions& o, const std::string& prefix) {
  for (const std::string& c : o.choices) {
    if (c.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

TEST(DecodeOptions, CpuDefaults) {
  auto o = ResolveDecodeOptions(RawStepFlags{}, RawDecodeFlags{}, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->step.device, "cpu");
  EXPECT_EQ(o->step.dtype, accounting::Dtype::kFp32);
  EXPECT_EQ(o->prompt, 64);
  EXPECT_EQ(o->generate, 64);
  EXPECT_EQ(o->batches, std::vector<int>{1});
  EXPECT_EQ(o->warmup_generations, 1);
  EXPECT_EQ(o->timed_generations, 5);
  // Each default says why; the train step's batch/seq/steps defaults are not repeated.
  EXPECT_TRUE(HasChoice(*o, "device: cpu"));
  EXPECT_TRUE(HasChoice(*o, "batch: 1 (one request"));
  EXPECT_TRUE(HasChoice(*o, "prompt: 64"));
  EXPECT_TRUE(HasChoice(*o, "generate: 64"));
  EXPECT_TRUE(HasChoice(*o, "steps: 1 warm-up + 5 timed generations"));
  EXPECT_FALSE(HasChoice(*o, "seq:"));
  EXPECT_EQ(o->CaseName(1), "gpt2/cpu/fp32/B:1/P:64/G:64");
}

TEST(DecodeOptions, CudaDefaults) {
  auto o = ResolveDecodeOptions(RawStepFlags{}, RawDecodeFlags{}, OneGpu(9));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->step.device, "cuda");
  EXPECT_EQ(o->step.dtype, accounting::Dtype::kBf16);
  EXPECT_EQ(o->prompt, 128);
  EXPECT_EQ(o->generate, 128);
  EXPECT_EQ(o->timed_generations, 10);
  // A GPU without bf16 picks fp16 for training, which the decoder does not run.
  ExpectErrorNames(ResolveDecodeOptions(RawStepFlags{}, RawDecodeFlags{}, OneGpu(7)), "--dtype");
}

// A Llama preset resolves as GPT-2's do: its block bounds the default lengths.
TEST(DecodeOptions, LlamaPresetResolves) {
  RawStepFlags s;
  s.preset = "llama-tiny";  // block 16
  auto o = ResolveDecodeOptions(s, RawDecodeFlags{}, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->CaseName(1), "llama-tiny/cpu/fp32/B:1/P:8/G:8");
  o = ResolveDecodeOptions(s, RawDecodeFlags{}, OneGpu(9));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->CaseName(1), "llama-tiny/cuda/bf16/B:1/P:8/G:8");
}

TEST(DecodeOptions, SmallBlockDefaultsStayInside) {
  RawStepFlags s;
  s.preset = "test-tiny";  // block 16
  auto o = ResolveDecodeOptions(s, RawDecodeFlags{}, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->prompt, 8);
  EXPECT_EQ(o->generate, 8);
  RawDecodeFlags d;
  d.prompt = 12;
  o = ResolveDecodeOptions(s, d, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->generate, 4);
  d.prompt = 16;
  ExpectErrorNames(ResolveDecodeOptions(s, d, NoGpu()), "--prompt: 16 tokens fill the block size 16");
}

TEST(DecodeOptions, PromptPlusGenerateBeyondTheBlockNamesTheFlag) {
  RawStepFlags s;
  s.preset = "test-tiny";
  RawDecodeFlags d;
  d.prompt = 10;
  d.generate = 7;
  ExpectErrorNames(ResolveDecodeOptions(s, d, NoGpu()),
                   "--generate: --prompt=10 + --generate=7 = 17 positions exceed the block size 16");
  d.generate = 6;
  EXPECT_TRUE(ResolveDecodeOptions(s, d, NoGpu()).ok());
  d.prompt = -1;
  ExpectErrorNames(ResolveDecodeOptions(s, d, NoGpu()), "--prompt: -1 is negative");
  d.prompt = 4;
  d.generate = -3;
  ExpectErrorNames(ResolveDecodeOptions(s, d, NoGpu()), "--generate: -3 is negative");
}

TEST(DecodeOptions, BatchZeroGivenIsAnError) {
  RawStepFlags s;
  RawDecodeFlags d;
  d.given = {"batch"};
  s.batch = 0;
  ExpectErrorNames(ResolveDecodeOptions(s, d, NoGpu()), "--batch: 0 streams");
  s.batch = -2;
  ExpectErrorNames(ResolveDecodeOptions(s, d, NoGpu()), "--batch: -2 streams");
  s.batch = 3;
  auto o = ResolveDecodeOptions(s, d, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->batches, std::vector<int>{3});
}

TEST(DecodeOptions, UnknownOrUnsupportedDtypeNamesTheFlag) {
  RawStepFlags s;
  s.dtype = "fp64";
  ExpectErrorNames(ResolveDecodeOptions(s, RawDecodeFlags{}, NoGpu()), "--dtype");
  ExpectErrorNames(ResolveDecodeOptions(s, RawDecodeFlags{}, OneGpu(9)), "--dtype");
  s.dtype = "fp16";
  ExpectErrorNames(ResolveDecodeOptions(s, RawDecodeFlags{}, NoGpu()), "--dtype: 'fp16' on the CPU");
  s.dtype = "bf16";
  // bf16 on the CPU: the decoder's bf16 weight copy (whether oneDNN runs it is the decoder's check).
  auto cpu = ResolveDecodeOptions(s, RawDecodeFlags{}, NoGpu());
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ(cpu->step.dtype, accounting::Dtype::kBf16);
  auto o = ResolveDecodeOptions(s, RawDecodeFlags{}, OneGpu(9));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->step.dtype, accounting::Dtype::kBf16);
}

// --weights: auto is the dtype's storage; fp32 and bf16 are those dtypes (bf16 with --dtype=fp32:
// weight-only); int8 runs on the CPU with fp32 arithmetic, under a case name of its own (fp32 and
// bf16 names unchanged).
TEST(DecodeOptions, WeightsFormatAndItsCaseName) {
  RawDecodeFlags d;
  auto o = ResolveDecodeOptions(RawStepFlags{}, d, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->weights, model::WeightFormat::kFp32);
  d.weights = "bf16";
  o = ResolveDecodeOptions(RawStepFlags{}, d, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->weights, model::WeightFormat::kBf16);
  EXPECT_EQ(o->step.dtype, accounting::Dtype::kBf16);
  EXPECT_EQ(o->CaseName(1), "gpt2/cpu/bf16/B:1/P:64/G:64");
  d.weights = "int8";
  o = ResolveDecodeOptions(RawStepFlags{}, d, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->weights, model::WeightFormat::kInt8);
  EXPECT_EQ(o->step.dtype, accounting::Dtype::kFp32);
  EXPECT_EQ(o->CaseName(2), "gpt2/cpu/int8w/B:2/P:64/G:64");
  RawStepFlags s;
  s.dtype = "fp32";
  EXPECT_TRUE(ResolveDecodeOptions(s, d, NoGpu()).ok());
  // bf16 weights with --dtype=fp32: weight-only bf16, fp32 arithmetic, a name of its own; CPU only.
  d.weights = "bf16";
  o = ResolveDecodeOptions(s, d, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->weights, model::WeightFormat::kBf16);
  EXPECT_EQ(o->step.dtype, accounting::Dtype::kFp32);
  EXPECT_EQ(o->CaseName(1), "gpt2/cpu/bf16w/B:1/P:64/G:64");
  ExpectErrorNames(ResolveDecodeOptions(s, d, OneGpu(9)), "--weights: bf16 with --dtype=fp32 (bf16 weights, fp32 "
                                                          "arithmetic) runs on the CPU only");
  d.weights = "int8";
  s.dtype = "bf16";
  ExpectErrorNames(ResolveDecodeOptions(s, d, NoGpu()), "--weights: int8 with --dtype=bf16");
  d.weights = "fp32";
  ExpectErrorNames(ResolveDecodeOptions(s, d, NoGpu()), "--weights: fp32 with --dtype=bf16");
  d.weights = "int4";
  ExpectErrorNames(ResolveDecodeOptions(RawStepFlags{}, d, NoGpu()),
                   "--weights: 'int4' is not a weight format; allowed: auto, fp32, bf16, int8");
  d.weights = "int8";
  ExpectErrorNames(ResolveDecodeOptions(RawStepFlags{}, d, OneGpu(9)), "--weights: int8 on CUDA");
  // A GPU's bf16 default under auto.
  d.weights = "auto";
  o = ResolveDecodeOptions(RawStepFlags{}, d, OneGpu(9));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->weights, model::WeightFormat::kBf16);
}

TEST(DecodeOptions, BatchSweep) {
  RawDecodeFlags d;
  d.batch_sweep = 64;
  auto o = ResolveDecodeOptions(RawStepFlags{}, d, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->batches, (std::vector<int>{1, 2, 4, 8, 16, 32, 64}));
  d.batch_sweep = 5;
  EXPECT_EQ(ResolveDecodeOptions(RawStepFlags{}, d, NoGpu())->batches, (std::vector<int>{1, 2, 4}));
  d.batch_sweep = 65;
  ExpectErrorNames(ResolveDecodeOptions(RawStepFlags{}, d, NoGpu()), "--batch_sweep: 65 is out of range");
  d.batch_sweep = 8;
  d.given = {"batch"};
  RawStepFlags s;
  s.batch = 2;
  ExpectErrorNames(ResolveDecodeOptions(s, d, NoGpu()),
                   "--batch_sweep: give either --batch or --batch_sweep");
}

TEST(DecodeOptions, TrainStepFlagsAreRefusedByName) {
  for (const std::string& flag : TrainOnlyFlags()) {
    RawDecodeFlags d;
    d.given = {flag};
    ExpectErrorNames(ResolveDecodeOptions(RawStepFlags{}, d, NoGpu()), "--" + flag + ":");
  }
  RawDecodeFlags d;
  d.given = {"seq"};
  ExpectErrorNames(ResolveDecodeOptions(RawStepFlags{}, d, NoGpu()), "--prompt");
}

TEST(DecodeOptions, SharedFlagErrorsComeFromTheStepResolution) {
  RawStepFlags s;
  s.preset = "gpt5";
  ExpectErrorNames(ResolveDecodeOptions(s, RawDecodeFlags{}, NoGpu()), "--preset");
  s = RawStepFlags{};
  s.device = "cuda";
  ExpectErrorNames(ResolveDecodeOptions(s, RawDecodeFlags{}, NoGpu()), "--device");
  s = RawStepFlags{};
  s.threads = -1;
  ExpectErrorNames(ResolveDecodeOptions(s, RawDecodeFlags{}, NoGpu()), "--threads");
}

TEST(DecodeOptions, GivenFlags) {
  const char* argv[] = {"gpt_decode", "--batch=0", "-prompt", "3", "--noreal_data", "value", "--", "--seq=4"};
  std::set<std::string> given = GivenFlags(8, const_cast<char**>(argv));
  EXPECT_TRUE(given.count("batch"));
  EXPECT_TRUE(given.count("prompt"));
  EXPECT_TRUE(given.count("real_data"));
  EXPECT_FALSE(given.count("seq"));  // after "--"
  EXPECT_FALSE(given.count("value"));
}

}  // namespace
}  // namespace macro
