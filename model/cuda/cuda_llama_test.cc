// The whole CUDA train step of the Llama family (RMSNorm, RoPE, SwiGLU, grouped-query attention,
// no biases, untied LM head) against the CPU model (model/cpu_model.h), as cuda_gpt_test.cc does
// for GPT-2: same initial parameters from the same seed, then logits, loss and every gradient
// tensor of one step, each switch alone on GPT-2's test-tiny too, and a few AdamW steps. Built
// twice: cuda_llama_emu_test runs the kernels in the emulator with the reference GEMM
// (llama-tiny), cuda_llama_cuda_test on the GPU with cuBLASLt (a larger Llama; skipped without a
// device).
#include <cmath>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "accounting/flop_counter.h"
#include "gtest/gtest.h"
#include "model/cpu_model.h"
#include "model/cuda/cuda_gpt.h"
#include "model/cuda/launch_config.h"
#include "model/cuda/test_backend.h"
#include "model/data/batch_source.h"
#include "model/gpt_config.h"
#include "model/op_timer.h"
#include "model/param_layout.h"
#include "model/threads.h"

namespace model {
namespace cuda {
namespace {

using test::MaxRelErr;
using test::NormRelErr;

// The CPU reference runs single-threaded (its OpenMP threads spin-wait on a loaded machine).
const bool kOneCpuThread = [] {
  SetNumThreads(1);
  return true;
}();

struct RunSetup {
  GptConfig config;
  int B, T;
};

// llama-tiny (L2 C32 H4 KV2 F64 V64) in the emulator; on a GPU a Llama of test-mini's size with
// head size 32 and four query heads per K/V head.
RunSetup LlamaSetup() {
  GptConfig c = *GptPreset("llama-tiny");
  if (test::IsEmulated()) return RunSetup{c, 2, 16};
  c.name = "llama-mini";
  c.layers = 4;
  c.width = 256;
  c.heads = 8;
  c.kv_heads = 2;
  c.mlp_hidden = 688;
  c.vocab = 1000;
  c.padded_vocab = 1024;
  c.block = 256;
  return RunSetup{c, 4, 64};
}

// GPT-2's test-tiny (or test-mini) with one switch of the Llama family turned on.
RunSetup Gpt2With(const char* change) {
  RunSetup s = test::IsEmulated() ? RunSetup{*GptPreset("test-tiny"), 2, 16}
                                  : RunSetup{*GptPreset("test-mini"), 4, 64};
  const std::string c = change;
  if (c == "rmsnorm") s.config.norm = NormKind::kRmsNorm;
  if (c == "rope") s.config.positions = PositionKind::kRope;
  if (c == "swiglu") s.config.mlp = MlpKind::kSwiglu, s.config.mlp_hidden = 3 * s.config.width;
  if (c == "mqa") s.config.kv_heads = 1;
  if (c == "no-bias") s.config.bias = false;
  if (c == "untied") s.config.tie_weights = false;
  s.config.name = "test-" + c;
  return s;
}

Batch RandomBatch(const GptConfig& c, int B, int T, uint64_t seed) {
  absl::StatusOr<Batch> b = FixedRandomBatch(B, T, c.vocab, seed);
  if (!b.ok()) std::abort();  // the tests' shapes are valid
  return *std::move(b);
}

std::unique_ptr<GptModel> MakeCuda(const RunSetup& s, CudaPrecision precision, uint64_t seed = 7,
                                   int64_t attention_block = 0, bool cuda_graph = false) {
  CudaGptOptions options;
  options.precision = precision;
  options.fuse_gelu = true;  // asked for; a SwiGLU model has no GeLU to fuse
  options.attention_block = attention_block;
  options.cuda_graph = cuda_graph;
  absl::StatusOr<std::unique_ptr<GptModel>> m =
      CreateCudaGpt(s.config, s.B, s.T, seed, options, test::MakeGemmRunner());
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

std::vector<float> Slice(const std::vector<float>& v, const ParamTensorInfo& t) {
  return std::vector<float>(v.begin() + t.offset, v.begin() + t.offset + t.size);
}

// As cuda_gpt_test.cc: fp32 max relative error per tensor; bf16 relative L2 error per tensor.
struct Tolerances {
  double logits, loss, grads;
};
Tolerances TolerancesFor(CudaPrecision p) {
  if (p == CudaPrecision::kFp32) return {1e-4, 1e-5, 2e-4};
  return {3e-2, 1e-2, 8e-2};
}

void StepMatchesCpu(const RunSetup& s, CudaPrecision precision, int64_t attention_block = 0) {
  SKIP_WITHOUT_DEVICE();
  SCOPED_TRACE(DescribeConfig(s.config));
  absl::StatusOr<std::unique_ptr<GptModel>> cpu = MakeCpuModel(s.config, s.B, s.T, 7);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  std::unique_ptr<GptModel> gpu = MakeCuda(s, precision, 7, attention_block);
  ASSERT_NE(gpu, nullptr);
  ASSERT_EQ(gpu->num_params(), (*cpu)->num_params());
  std::vector<float> p_cpu, p_gpu;
  ASSERT_TRUE((*cpu)->CopyParamsToHost(&p_cpu).ok());
  ASSERT_TRUE(gpu->CopyParamsToHost(&p_gpu).ok());
  ASSERT_EQ(p_cpu, p_gpu);  // same initial parameters, bit for bit

  const Batch batch = RandomBatch(s.config, s.B, s.T, 11);
  accounting::FlopCounter cpu_flops, gpu_flops;
  {
    accounting::ScopedFlopCounter scope(&cpu_flops);
    ASSERT_TRUE((*cpu)->Forward(batch).ok());
    (*cpu)->ZeroGrad();
    ASSERT_TRUE((*cpu)->Backward().ok());
  }
  std::vector<float> logits_cpu, logits_gpu;
  {
    accounting::ScopedFlopCounter scope(&gpu_flops);
    ASSERT_TRUE(gpu->Forward(batch).ok());
    ASSERT_TRUE(gpu->CopyLogitsToHost(&logits_gpu).ok());
    gpu->ZeroGrad();
    ASSERT_TRUE(gpu->Backward().ok());
  }
  ASSERT_TRUE((*cpu)->Forward(batch).ok());  // the CPU's logits are gone after its Backward
  ASSERT_TRUE((*cpu)->CopyLogitsToHost(&logits_cpu).ok());

  const Tolerances tol = TolerancesFor(precision);
  const bool fp32 = precision == CudaPrecision::kFp32;
  EXPECT_LE(fp32 ? MaxRelErr(logits_gpu, logits_cpu) : NormRelErr(logits_gpu, logits_cpu), tol.logits);
  EXPECT_NEAR(gpu->loss(), (*cpu)->loss(), tol.loss * (*cpu)->loss());
  EXPECT_NEAR(gpu->loss(), std::log(static_cast<float>(s.config.vocab)), 0.5);  // untrained: ~ln(vocab)

  std::vector<float> g_cpu, g_gpu;
  ASSERT_TRUE((*cpu)->CopyGradsToHost(&g_cpu).ok());
  ASSERT_TRUE(gpu->CopyGradsToHost(&g_gpu).ok());
  const ParamLayout layout(s.config);
  int compared = 0;
  for (const ParamTensorInfo& t : layout.tensors()) {
    if (t.size == 0) continue;
    const std::vector<float> a = Slice(g_gpu, t), b = Slice(g_cpu, t);
    EXPECT_LE(fp32 ? MaxRelErr(a, b) : NormRelErr(a, b), tol.grads) << "gradient of " << t.name;
    ++compared;
  }
  EXPECT_GE(compared, 7);
  // Every matmul reported with the CPU's FLOPs per tag (qkv's QKV columns, fc's 2F for SwiGLU);
  // attention's scaled by the share of the T x T products that block-causal attention issues.
  const double fraction = AttentionWorkFraction(s.T, AttentionBlock(s.T, attention_block));
  for (const auto& [tag, flops] : cpu_flops.by_tag()) {
    const bool attention = tag.rfind("attention_", 0) == 0;
    EXPECT_DOUBLE_EQ(gpu_flops.by_tag()[tag], attention ? flops * fraction : flops) << tag;
  }
  EXPECT_EQ(gpu_flops.by_tag().size(), cpu_flops.by_tag().size());
}

TEST(CudaLlamaTest, Fp32StepMatchesCpu) { StepMatchesCpu(LlamaSetup(), CudaPrecision::kFp32); }
TEST(CudaLlamaTest, Bf16StepMatchesCpu) { StepMatchesCpu(LlamaSetup(), CudaPrecision::kBf16); }
TEST(CudaLlamaTest, Fp32StepWithAttentionBlocksMatchesCpu) {
  StepMatchesCpu(LlamaSetup(), CudaPrecision::kFp32, /*attention_block=*/test::IsEmulated() ? 5 : 24);
}
TEST(CudaLlamaTest, Fp32TiedStepMatchesCpu) {
  RunSetup s = LlamaSetup();
  s.config.tie_weights = true;  // llama3.2-1b's tied LM head
  StepMatchesCpu(s, CudaPrecision::kFp32);
}

// Each switch alone, on GPT-2's small preset: the op and its backward in the whole step.
TEST(CudaLlamaTest, EachSwitchAloneMatchesCpu) {
  for (const char* change : {"rmsnorm", "rope", "swiglu", "mqa", "no-bias", "untied"}) {
    StepMatchesCpu(Gpt2With(change), CudaPrecision::kFp32);
  }
}

// A few AdamW steps on one batch: the losses track the CPU's and fall.
void StepsTrackCpu(CudaPrecision precision, int steps) {
  SKIP_WITHOUT_DEVICE();
  const RunSetup s = LlamaSetup();
  absl::StatusOr<std::unique_ptr<GptModel>> cpu = MakeCpuModel(s.config, s.B, s.T, 3);
  ASSERT_TRUE(cpu.ok());
  std::unique_ptr<GptModel> gpu = MakeCuda(s, precision, 3);
  ASSERT_NE(gpu, nullptr);
  const Batch batch = RandomBatch(s.config, s.B, s.T, 5);
  AdamWConfig opt;
  opt.lr = 3e-3f;
  const double tol = precision == CudaPrecision::kFp32 ? 2e-4 : 2e-2;
  float first = 0, last = 0;
  for (int step = 1; step <= steps; ++step) {
    for (GptModel* m : {cpu->get(), gpu.get()}) {
      ASSERT_TRUE(m->TrainStep(batch, opt, step).ok());
    }
    const float lc = (*cpu)->loss(), lg = gpu->loss();
    EXPECT_NEAR(lg, lc, tol * lc) << "step " << step;
    if (step == 1) first = lg;
    last = lg;
  }
  // The loss of the step's Forward after the updates: lower than the first step's.
  ASSERT_TRUE(gpu->Forward(batch).ok());
  ASSERT_TRUE((*cpu)->Forward(batch).ok());
  EXPECT_NEAR(gpu->loss(), (*cpu)->loss(), tol * (*cpu)->loss());
  EXPECT_LT(gpu->loss(), first - 0.05f) << "last step's loss " << last;
}

TEST(CudaLlamaTest, Fp32StepsTrackCpu) { StepsTrackCpu(CudaPrecision::kFp32, 3); }
TEST(CudaLlamaTest, Bf16StepsTrackCpu) { StepsTrackCpu(CudaPrecision::kBf16, 3); }

// Graph mode replays the same step: bit for bit in the emulator.
TEST(CudaLlamaTest, GraphStepsMatchUncapturedSteps) {
  SKIP_WITHOUT_DEVICE();
  const RunSetup s = LlamaSetup();
  std::unique_ptr<GptModel> plain = MakeCuda(s, CudaPrecision::kBf16, 9);
  std::unique_ptr<GptModel> graph = MakeCuda(s, CudaPrecision::kBf16, 9, 0, /*cuda_graph=*/true);
  ASSERT_TRUE(plain != nullptr && graph != nullptr);
  AdamWConfig opt;
  opt.lr = 1e-3f;
  for (int step = 1; step <= 4; ++step) {
    const Batch batch = RandomBatch(s.config, s.B, s.T, 100 + step);
    ASSERT_TRUE(plain->TrainStep(batch, opt, step).ok());
    const absl::Status st = graph->TrainStep(batch, opt, step);
    ASSERT_TRUE(st.ok()) << st;
    if (test::IsEmulated()) {
      EXPECT_EQ(graph->loss(), plain->loss()) << "step " << step;
    } else {
      EXPECT_NEAR(graph->loss(), plain->loss(), 1e-4 * plain->loss()) << "step " << step;
    }
  }
}

TEST(CudaLlamaTest, OpTimerSeesTheFamilysOpsAndDescribeNamesThem) {
  SKIP_WITHOUT_DEVICE();
  const RunSetup s = LlamaSetup();
  std::unique_ptr<GptModel> m = MakeCuda(s, CudaPrecision::kFp32);
  ASSERT_NE(m, nullptr);
  HostOpTimer timer;
  m->SetOpTimer(&timer);
  ASSERT_TRUE(m->TrainStep(RandomBatch(s.config, s.B, s.T, 2), AdamWConfig(), 1).ok());
  m->SetOpTimer(nullptr);
  std::set<std::string> names;
  int64_t norm_calls = 0;
  for (const OpTime& t : timer.Totals()) {
    names.insert(t.op);
    if (t.op == "rmsnorm_forward") norm_calls = t.calls;
  }
  for (const char* op :
       {"rmsnorm_forward", "rope_forward", "swiglu_forward", "rmsnorm_backward", "rope_backward",
        "swiglu_backward", "attention_forward", "attention_backward", "encoder_backward"}) {
    EXPECT_EQ(names.count(op), 1u) << op;
  }
  for (const char* op : {"layernorm_forward", "layernorm_backward", "gelu_forward", "gelu_backward"}) {
    EXPECT_EQ(names.count(op), 0u) << op;
  }
  EXPECT_EQ(norm_calls, 2 * s.config.layers + 1);
  const std::string d = DescribeCudaGpt(*m);
  for (const char* part : {"RMSNorm", "RoPE", "SwiGLU", "grouped-query attention", "no biases"}) {
    EXPECT_NE(d.find(part), std::string::npos) << part << " in " << d;
  }
}

}  // namespace
}  // namespace cuda
}  // namespace model
