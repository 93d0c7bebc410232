// Tests the train-step benchmark's defaults and its flag errors.
#include "macro/step_options.h"

#include <cmath>
#include <limits>

#include <cstdio>
#include <fstream>

#include "gtest/gtest.h"
#include "macro/options_test_util.h"

namespace macro {
namespace {

TEST(StepOptionsTest, CpuDefaults) {
  auto o = ResolveStepOptions(RawStepFlags{}, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->device, "cpu");
  EXPECT_EQ(o->config.name, "gpt2");
  EXPECT_EQ(o->config.layers, 12);
  EXPECT_EQ(o->batch, 4);
  EXPECT_EQ(o->seq, 64);
  EXPECT_EQ(o->dtype, accounting::Dtype::kFp32);
  EXPECT_FALSE(o->real_data);
  EXPECT_EQ(o->CaseName(), "gpt2/cpu/fp32/B:4/T:64");
  // Each default is explained, including why the device is the CPU.
  ASSERT_FALSE(o->choices.empty());
  EXPECT_NE(o->choices[0].find("insufficient"), std::string::npos);
}

TEST(StepOptionsTest, GpuDefaultsAreBenchPys) {
  auto o = ResolveStepOptions(RawStepFlags{}, OneGpu(9));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->device, "cuda");
  EXPECT_EQ(o->batch, 12);
  EXPECT_EQ(o->seq, 1024);
  EXPECT_EQ(o->dtype, accounting::Dtype::kBf16);
  EXPECT_EQ(o->warmup_steps, 10);
  EXPECT_EQ(o->steps, 20);
}

TEST(StepOptionsTest, OldGpuFallsBackToFp16) {
  auto o = ResolveStepOptions(RawStepFlags{}, OneGpu(7));
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->dtype, accounting::Dtype::kFp16);
}

TEST(StepOptionsTest, SeqLongerThanBlock) {
  RawStepFlags f;
  f.seq = 2048;
  f.block = 1024;
  ExpectErrorNames(ResolveStepOptions(f, NoGpu()), "--seq");
}

// The Llama presets resolve on the CPU; their switches can be overridden like any size, and a K/V
// head count that does not divide the heads is refused naming --kv_heads.
TEST(StepOptionsTest, LlamaPresetsAndTheirSwitches) {
  RawStepFlags f;
  f.preset = "llama-124m";
  auto o = ResolveStepOptions(f, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->config.kv_head_count(), 4);
  EXPECT_EQ(o->config.hidden(), 2048);
  EXPECT_EQ(o->config.norm, model::NormKind::kRmsNorm);
  EXPECT_EQ(o->CaseName(), "llama-124m/cpu/fp32/B:4/T:64");
  f.kv_heads = 12;  // multi-head
  f.mlp_hidden = 3072;
  o = ResolveStepOptions(f, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->config.kv_head_count(), 12);
  EXPECT_EQ(o->config.name, "llama-124m-custom");
  f.kv_heads = 5;
  ExpectErrorNames(ResolveStepOptions(f, NoGpu()), "--kv_heads");
  f.kv_heads = -1;
  ExpectErrorNames(ResolveStepOptions(f, NoGpu()), "--kv_heads");
}

TEST(StepOptionsTest, HeadsMustDivideWidth) {
  RawStepFlags f;
  f.heads = 5;
  f.width = 768;
  ExpectErrorNames(ResolveStepOptions(f, NoGpu()), "--heads");
}

TEST(StepOptionsTest, CudaWithoutGpu) {
  RawStepFlags f;
  f.device = "cuda";
  auto o = ResolveStepOptions(f, NoGpu());
  ExpectErrorNames(o, "--device");
  EXPECT_NE(o.status().message().find("insufficient"), std::string::npos);
}

TEST(StepOptionsTest, MissingDataFile) {
  RawStepFlags f;
  f.real_data = true;
  f.data = "/nonexistent/train.bin";
  auto o = ResolveStepOptions(f, NoGpu());
  ExpectErrorNames(o, "--data");
  EXPECT_NE(o.status().message().find("make_tokens"), std::string::npos);
  f.data = "";
  ExpectErrorNames(ResolveStepOptions(f, NoGpu()), "--data");
}

TEST(StepOptionsTest, GivenDataFileMeansRealData) {
  std::string path = std::string(getenv("TEST_TMPDIR")) + "/train.bin";
  { std::ofstream(path) << "0123456789"; }
  RawStepFlags f;
  f.data = path;
  auto o = ResolveStepOptions(f, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->real_data);
}

TEST(StepOptionsTest, OtherBadValuesNameTheirFlag) {
  struct Case {
    void (*set)(RawStepFlags*);
    const char* flag;
  };
  const Case cases[] = {
      {[](RawStepFlags* f) { f->preset = "gpt5"; }, "--preset"},
      {[](RawStepFlags* f) { f->device = "tpu"; }, "--device"},
      {[](RawStepFlags* f) { f->dtype = "int3"; }, "--dtype"},
      {[](RawStepFlags* f) { f->dtype = "fp16"; }, "--dtype"},  // the CPU runs fp32 or bf16
      {[](RawStepFlags* f) { f->batch = -2; }, "--batch"},
      {[](RawStepFlags* f) { f->layers = -1; }, "--layers"},
      {[](RawStepFlags* f) { f->steps = 0; }, "--steps"},
      {[](RawStepFlags* f) { f->bias = "maybe"; }, "--bias"},
      {[](RawStepFlags* f) { f->attention = "linear"; }, "--attention"},
      {[](RawStepFlags* f) { f->peak_flops = -1; }, "--peak_flops"},
      {[](RawStepFlags* f) { f->ceilings = "/nonexistent.json"; }, "--ceilings"},
      {[](RawStepFlags* f) { f->lr = 0; }, "--lr"},
      {[](RawStepFlags* f) { f->threads = -3; }, "--threads"},
      // Above the CPUs the process may run on (no machine has a million).
      {[](RawStepFlags* f) { f->threads = 1000000; }, "--threads: 1000000 is more than the "},
      {[](RawStepFlags* f) { f->cpu_gemm = "bogus"; }, "--cpu_gemm=bogus"},
      // Past the limit the padded vocabulary overflowed an int (it read -2147483584).
      {[](RawStepFlags* f) { f->vocab = 2147483647; }, "--vocab: 2147483647 is out of range"},
      {[](RawStepFlags* f) { f->lr = std::numeric_limits<double>::infinity(); }, "--lr"},
      {[](RawStepFlags* f) { f->lr = std::nan(""); }, "--lr"},
      {[](RawStepFlags* f) { f->weight_decay = std::nan(""); }, "--weight_decay"},
  };
  for (const Case& c : cases) {
    RawStepFlags f;
    c.set(&f);
    ExpectErrorNames(ResolveStepOptions(f, NoGpu()), c.flag);
  }
}

TEST(StepOptionsTest, CpuGemmDefaultsToAutoAndSaysWhy) {
  auto o = ResolveStepOptions(RawStepFlags{}, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->cpu_gemm, model::CpuGemmBackend::kAuto);
  bool explained = false;
  for (const std::string& c : o->choices) explained |= c.rfind("cpu_gemm: auto (", 0) == 0;
  EXPECT_TRUE(explained);
  RawStepFlags f;
  f.cpu_gemm = "openblas";
  o = ResolveStepOptions(f, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->cpu_gemm, model::CpuGemmBackend::kOpenBlas);
  // A bad value names the flag, the value and the allowed ones.
  f.cpu_gemm = "bogus";
  o = ResolveStepOptions(f, NoGpu());
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("--cpu_gemm=bogus"), std::string::npos) << o.status();
  EXPECT_NE(o.status().message().find("onednn, onednn_sgemm, openblas, auto"), std::string::npos) << o.status();
  // On CUDA the CPU library is not a choice.
  f.cpu_gemm = "openblas";
  ExpectErrorNames(ResolveStepOptions(f, OneGpu(9)), "--cpu_gemm");
}

TEST(StepOptionsTest, CudaGraphNeedsTheCudaModelTwoWarmupStepsAndNoProfile) {
  RawStepFlags f;
  auto o = ResolveStepOptions(f, OneGpu(9));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(o->cuda_graph);  // off unless asked for

  f.cuda_graph = true;
  o = ResolveStepOptions(f, OneGpu(9));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->cuda_graph);
  bool explained = false;
  for (const std::string& c : o->choices) explained |= c.rfind("cuda_graph: ", 0) == 0;
  EXPECT_TRUE(explained);

  // On the CPU (asked for, or chosen because there is no GPU) it is an error naming the flag.
  f.device = "cpu";
  o = ResolveStepOptions(f, OneGpu(9));
  ExpectErrorNames(o, "--cuda_graph");
  EXPECT_NE(o.status().message().find("cpu"), std::string::npos) << o.status();
  f.device = "auto";
  ExpectErrorNames(ResolveStepOptions(f, NoGpu()), "--cuda_graph");

  // Step 1 uncaptured, step 2 the capture: both must be warm-up steps.
  f.warmup_steps = 1;
  o = ResolveStepOptions(f, OneGpu(9));
  ExpectErrorNames(o, "--cuda_graph");
  EXPECT_NE(o.status().message().find("--warmup_steps >= 2"), std::string::npos) << o.status();
  f.warmup_steps = 2;
  EXPECT_TRUE(ResolveStepOptions(f, OneGpu(9)).ok());

  // A replay has no op boundaries for --profile.
  f.profile = true;
  f.profile_out = testing::TempDir() + "/cuda_graph_trace.json";
  o = ResolveStepOptions(f, OneGpu(9));
  ExpectErrorNames(o, "--cuda_graph");
  EXPECT_NE(o.status().message().find("--profile"), std::string::npos) << o.status();
}

// --recompute: the level by its name; gelu on a GeLU MLP, swiglu on a SwiGLU one; the CPU fp32
// step only; all (every level) not with --compare_data or --profile.
TEST(StepOptionsTest, RecomputeLevelsAreParsedAndCheckedAgainstTheModel) {
  RawStepFlags f;
  f.device = "cpu";
  auto o = ResolveStepOptions(f, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->recompute, accounting::Recompute::kNone);  // the default
  EXPECT_FALSE(o->recompute_all);
  const std::pair<const char*, accounting::Recompute> gpt2_levels[] = {
      {"gelu", accounting::Recompute::kActivation},
      {"attention", accounting::Recompute::kAttention},
      {"block", accounting::Recompute::kBlock}};
  for (const auto& [name, level] : gpt2_levels) {
    f.recompute = name;
    o = ResolveStepOptions(f, NoGpu());
    ASSERT_TRUE(o.ok()) << name << ": " << o.status();
    EXPECT_EQ(o->recompute, level) << name;
    EXPECT_EQ(RecomputeFlagName(level, o->config), name);
  }
  // gelu names GPT-2's activation: on a SwiGLU preset it is refused with the level that is there.
  f.recompute = "swiglu";
  o = ResolveStepOptions(f, NoGpu());
  ExpectErrorNames(o, "--recompute");
  EXPECT_NE(o.status().message().find("gpt2's MLP is gelu"), std::string::npos) << o.status();
  f.preset = "llama-tiny";
  f.recompute = "gelu";
  o = ResolveStepOptions(f, NoGpu());
  ExpectErrorNames(o, "--recompute");
  EXPECT_NE(o.status().message().find("use --recompute=swiglu"), std::string::npos) << o.status();
  f.recompute = "swiglu";
  o = ResolveStepOptions(f, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->recompute, accounting::Recompute::kActivation);

  f.recompute = "everything";
  o = ResolveStepOptions(f, NoGpu());
  ExpectErrorNames(o, "--recompute");
  EXPECT_NE(o.status().message().find("'everything' is not one of none, swiglu, attention, block, all"),
            std::string::npos)
      << o.status();

  f.recompute = "all";
  o = ResolveStepOptions(f, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->recompute_all);
  EXPECT_EQ(RecomputeLevels(o->config).size(), 4u);
  f.compare_data = true;
  f.data = "/proc/self/exe";  // readable; --compare_data needs a file
  ExpectErrorNames(ResolveStepOptions(f, NoGpu()), "--recompute");
  f.compare_data = false;

  // The CUDA model recomputes in every dtype (bf16 by default on sm_90); the bf16 CPU step does
  // not (not built): refused, not ignored.
  f.recompute = "block";
  f.device = "auto";
  o = ResolveStepOptions(f, OneGpu(9));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->device, "cuda");
  EXPECT_EQ(o->recompute, accounting::Recompute::kBlock);
  f.device = "cpu";
  f.dtype = "bf16";
  o = ResolveStepOptions(f, NoGpu());
  ExpectErrorNames(o, "--recompute");
  EXPECT_NE(o.status().message().find("--dtype=fp32"), std::string::npos) << o.status();
}

// --attention_impl: parsed here; cudnn and kernels only on CUDA, cudnn only in bf16; auto left
// for the model to decide.
TEST(StepOptionsTest, AttentionImplIsCheckedAgainstDeviceAndDtype) {
  auto defaults = ResolveStepOptions(RawStepFlags{}, OneGpu(9));
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->attention_impl, model::cuda::AttentionImpl::kAuto);
  RawStepFlags f;
  f.attention_impl = "cudnn";
  auto cudnn = ResolveStepOptions(f, OneGpu(9));  // bf16 by default on sm_90
  ASSERT_TRUE(cudnn.ok()) << cudnn.status();
  EXPECT_EQ(cudnn->attention_impl, model::cuda::AttentionImpl::kCudnn);
  f.dtype = "fp32";
  auto fp32 = ResolveStepOptions(f, OneGpu(9));
  ExpectErrorNames(fp32, "--attention_impl: 'cudnn' runs bf16 only; dtype is fp32");
  f.attention_impl = "kernels";
  auto kernels = ResolveStepOptions(f, OneGpu(9));
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  EXPECT_EQ(kernels->attention_impl, model::cuda::AttentionImpl::kKernels);
  RawStepFlags cpu;
  cpu.attention_impl = "cudnn";
  ExpectErrorNames(ResolveStepOptions(cpu, NoGpu()),
                   "--attention_impl: 'cudnn' chooses the CUDA model's attention");
  cpu.attention_impl = "auto";
  EXPECT_TRUE(ResolveStepOptions(cpu, NoGpu()).ok());
  cpu.attention_impl = "flash";
  ExpectErrorNames(ResolveStepOptions(cpu, NoGpu()), "--attention_impl: 'flash' is not auto");
}

TEST(StepOptionsTest, OverridesMakeACustomConfig) {
  RawStepFlags f;
  f.layers = 2;
  f.seq = 32;
  f.batch = 1;
  f.bias = "false";
  auto o = ResolveStepOptions(f, NoGpu());
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->config.layers, 2);
  EXPECT_FALSE(o->config.bias);
  EXPECT_EQ(o->config.name, "gpt2-custom");
  EXPECT_EQ(o->CaseName(), "gpt2-custom/cpu/fp32/B:1/T:32");
}

}  // namespace
}  // namespace macro
