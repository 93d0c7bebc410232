// The whole CUDA train step against the CPU model (model/cpu_model.h) for a small config:
// same initial parameters from the same seed, then logits, loss and every gradient tensor of
// one step, and the losses of ten AdamW steps. Built twice: cuda_gpt_emu_test runs the kernels
// in the emulator with the reference GEMM (test-tiny), cuda_gpt_cuda_test on the GPU with
// cuBLASLt (test-mini; skipped without a device).
#include "model/cuda/cuda_gpt.h"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "accounting/flop_counter.h"
#include "gtest/gtest.h"
#include "model/cpu_model.h"
#include "model/cuda/graph_check.h"
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

struct RunSetup {
  GptConfig config;
  int B, T;
};

// The CPU reference runs single-threaded: its OpenMP threads spin-wait, which on a loaded
// machine costs far more than they save on these small shapes.
const bool kOneCpuThread = [] {
  SetNumThreads(1);
  return true;
}();

RunSetup SmallSetup() {
  if (test::IsEmulated()) return RunSetup{*GptPreset("test-tiny"), 2, 16};
  return RunSetup{*GptPreset("test-mini"), 4, 64};
}

Batch RandomBatch(const GptConfig& c, int B, int T, uint64_t seed) {
  absl::StatusOr<Batch> b = FixedRandomBatch(B, T, c.vocab, seed);
  if (!b.ok()) std::abort();  // the tests' shapes are valid
  return *std::move(b);
}

std::unique_ptr<GptModel> MakeCuda(const RunSetup& s, CudaPrecision precision, bool fuse_gelu,
                                   uint64_t seed = 7, bool fuse_residual = true, int64_t attention_block = 0,
                                   bool cuda_graph = false) {
  CudaGptOptions options;
  options.cuda_graph = cuda_graph;
  options.attention_block = attention_block;
  options.precision = precision;
  options.fuse_gelu = fuse_gelu;
  options.fuse_residual = fuse_residual;
  absl::StatusOr<std::unique_ptr<GptModel>> m =
      CreateCudaGpt(s.config, s.B, s.T, seed, options, test::MakeGemmRunner());
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

std::vector<float> Slice(const std::vector<float>& v, const ParamTensorInfo& t) {
  return std::vector<float>(v.begin() + t.offset, v.begin() + t.offset + t.size);
}

struct Tolerances {
  double logits, loss, grads;
};

// fp32: max relative error per tensor. bf16 / tf32: relative L2 error per tensor (a few
// elements near zero may differ by more than their size, the tensor as a whole does not).
Tolerances TolerancesFor(CudaPrecision p) {
  switch (p) {
    case CudaPrecision::kFp32: return {1e-4, 1e-5, 2e-4};
    case CudaPrecision::kTf32: return {1e-2, 2e-3, 5e-2};
    case CudaPrecision::kBf16: break;
  }
  return {3e-2, 1e-2, 8e-2};
}

void StepMatchesCpu(CudaPrecision precision, bool fuse_gelu, bool fuse_residual = true,
                    int64_t attention_block = 0) {
  SKIP_WITHOUT_DEVICE();
  const RunSetup s = SmallSetup();
  absl::StatusOr<std::unique_ptr<GptModel>> cpu = MakeCpuModel(s.config, s.B, s.T, 7);
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  std::unique_ptr<GptModel> gpu = MakeCuda(s, precision, fuse_gelu, 7, fuse_residual, attention_block);
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->device(), "cuda");
  EXPECT_EQ(gpu->num_params(), (*cpu)->num_params());

  // Same initial parameters, bit for bit.
  std::vector<float> p_cpu, p_gpu;
  ASSERT_TRUE((*cpu)->CopyParamsToHost(&p_cpu).ok());
  ASSERT_TRUE(gpu->CopyParamsToHost(&p_gpu).ok());
  ASSERT_EQ(p_cpu, p_gpu);

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
  // The CPU's logits are gone after its Backward: recompute them with a fresh Forward.
  ASSERT_TRUE((*cpu)->Forward(batch).ok());
  ASSERT_TRUE((*cpu)->CopyLogitsToHost(&logits_cpu).ok());

  // cuBLASLt's GeLU epilogue may use the hardware tanh approximation (~1e-3): with it, fp32 is
  // held to the tf32 tolerances. The emulator's reference GEMM uses the exact formula.
  const bool approximate_gelu = fuse_gelu && !test::IsEmulated();
  const Tolerances tol =
      TolerancesFor(precision == CudaPrecision::kFp32 && approximate_gelu ? CudaPrecision::kTf32 : precision);
  const bool fp32 = precision == CudaPrecision::kFp32 && !approximate_gelu;
  EXPECT_LE(fp32 ? MaxRelErr(logits_gpu, logits_cpu) : NormRelErr(logits_gpu, logits_cpu), tol.logits);
  EXPECT_NEAR(gpu->loss(), (*cpu)->loss(), tol.loss * (*cpu)->loss());
  // The loss of an untrained model is about ln(vocab).
  EXPECT_NEAR(gpu->loss(), std::log(static_cast<float>(s.config.vocab)), 0.5);

  std::vector<float> g_cpu, g_gpu;
  ASSERT_TRUE((*cpu)->CopyGradsToHost(&g_cpu).ok());
  ASSERT_TRUE(gpu->CopyGradsToHost(&g_gpu).ok());
  const ParamLayout layout(s.config);
  for (const ParamTensorInfo& t : layout.tensors()) {
    if (t.size == 0) continue;
    const std::vector<float> a = Slice(g_gpu, t), b = Slice(g_cpu, t);
    EXPECT_LE(fp32 ? MaxRelErr(a, b) : NormRelErr(a, b), tol.grads) << "gradient of " << t.name;
  }
  // Every matmul reported, with the CPU's FLOPs per tag; attention's scaled by the share of
  // the T x T products that block-causal attention issues.
  const double fraction = AttentionWorkFraction(s.T, AttentionBlock(s.T, attention_block));
  for (const auto& [tag, flops] : cpu_flops.by_tag()) {
    const bool attention = tag.rfind("attention_", 0) == 0;
    EXPECT_DOUBLE_EQ(gpu_flops.by_tag()[tag], attention ? flops * fraction : flops) << tag;
  }
  EXPECT_EQ(gpu_flops.by_tag().size(), cpu_flops.by_tag().size());
}

void TenStepsTrackCpu(CudaPrecision precision) {
  SKIP_WITHOUT_DEVICE();
  const RunSetup s = SmallSetup();
  absl::StatusOr<std::unique_ptr<GptModel>> cpu = MakeCpuModel(s.config, s.B, s.T, 3);
  ASSERT_TRUE(cpu.ok());
  std::unique_ptr<GptModel> gpu = MakeCuda(s, precision, true, 3);
  ASSERT_NE(gpu, nullptr);
  const Batch batch = RandomBatch(s.config, s.B, s.T, 5);  // one batch, memorised
  AdamWConfig opt;
  opt.lr = 1e-3f;
  const double tol = precision == CudaPrecision::kFp32 ? 2e-4 : 2e-2;
  float first = 0, last = 0;
  for (int step = 1; step <= 10; ++step) {
    for (GptModel* m : {cpu->get(), gpu.get()}) {
      ASSERT_TRUE(m->Forward(batch).ok());
      m->ZeroGrad();
      ASSERT_TRUE(m->Backward().ok());
      ASSERT_TRUE(m->Update(opt, step).ok());
    }
    const float lc = (*cpu)->loss(), lg = gpu->loss();
    EXPECT_NEAR(lg, lc, tol * lc) << "step " << step;
    if (step == 1) first = lg;
    last = lg;
  }
  EXPECT_LT(last, first - 0.1f);  // it learns
  // The parameters after ten updates. Loose on purpose: parameters whose true gradient is
  // exactly zero (the key biases: softmax ignores a constant added to a row) receive Adam
  // updates of size ~lr whose sign follows rounding noise, which differs between CPU and GPU.
  // The loss does not depend on them, which is why the losses above can be compared tightly.
  std::vector<float> p_cpu, p_gpu;
  ASSERT_TRUE((*cpu)->CopyParamsToHost(&p_cpu).ok());
  ASSERT_TRUE(gpu->CopyParamsToHost(&p_gpu).ok());
  EXPECT_LE(NormRelErr(p_gpu, p_cpu), precision == CudaPrecision::kFp32 ? 1e-2 : 3e-2);
}

TEST(CudaGptTest, Fp32StepMatchesCpu) { StepMatchesCpu(CudaPrecision::kFp32, false); }
TEST(CudaGptTest, Fp32StepWithFusedGeluMatchesCpu) {
  // On cuBLASLt the fp32 GeLU epilogue may not exist; then this is the unfused path again.
  StepMatchesCpu(CudaPrecision::kFp32, true);
}
TEST(CudaGptTest, Bf16StepMatchesCpu) { StepMatchesCpu(CudaPrecision::kBf16, true); }
TEST(CudaGptTest, Bf16StepUnfusedMatchesCpu) {
  StepMatchesCpu(CudaPrecision::kBf16, false, /*fuse_residual=*/false);
}
TEST(CudaGptTest, Fp32StepUnfusedResidualMatchesCpu) {
  StepMatchesCpu(CudaPrecision::kFp32, false, /*fuse_residual=*/false);
}
TEST(CudaGptTest, Fp32StepWithAttentionBlocksMatchesCpu) {
  StepMatchesCpu(CudaPrecision::kFp32, false, true, /*attention_block=*/test::IsEmulated() ? 4 : 16);
}
TEST(CudaGptTest, Bf16StepWithAttentionBlocksMatchesCpu) {
  StepMatchesCpu(CudaPrecision::kBf16, true, true, /*attention_block=*/test::IsEmulated() ? 5 : 24);
}
TEST(CudaGptTest, Tf32StepIsClose) { StepMatchesCpu(CudaPrecision::kTf32, false); }
TEST(CudaGptTest, Fp32TenStepsTrackCpu) { TenStepsTrackCpu(CudaPrecision::kFp32); }
TEST(CudaGptTest, Bf16TenStepsTrackCpu) { TenStepsTrackCpu(CudaPrecision::kBf16); }

TEST(CudaGptTest, InterfaceErrorsAndState) {
  SKIP_WITHOUT_DEVICE();
  const RunSetup s = SmallSetup();
  std::unique_ptr<GptModel> m = MakeCuda(s, CudaPrecision::kBf16, true);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->Backward().code(), absl::StatusCode::kFailedPrecondition);
  std::vector<float> logits;
  EXPECT_EQ(m->CopyLogitsToHost(&logits).code(), absl::StatusCode::kFailedPrecondition);
  const Batch wrong = RandomBatch(s.config, s.B, s.T - 1, 1);
  EXPECT_EQ(m->Forward(wrong).code(), absl::StatusCode::kInvalidArgument);
  Batch bad = RandomBatch(s.config, s.B, s.T, 1);
  bad.inputs[3] = s.config.vocab;
  EXPECT_EQ(m->Forward(bad).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m->Update(AdamWConfig(), 0).code(), absl::StatusCode::kInvalidArgument);
  AdamWConfig negative;
  negative.lr = -1;
  EXPECT_EQ(m->Update(negative, 1).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(m->CopyParamsFromHost(std::vector<float>(3)).code(), absl::StatusCode::kInvalidArgument);

  // Forward, logits readable; Backward turns them into gradients.
  const Batch batch = RandomBatch(s.config, s.B, s.T, 2);
  ASSERT_TRUE(m->Forward(batch).ok());
  ASSERT_TRUE(m->CopyLogitsToHost(&logits).ok());
  EXPECT_EQ(logits.size(), static_cast<size_t>(s.B) * s.T * s.config.padded_vocab);
  m->ZeroGrad();
  ASSERT_TRUE(m->Backward().ok());
  EXPECT_EQ(m->CopyLogitsToHost(&logits).code(), absl::StatusCode::kFailedPrecondition);
  m->Synchronize();

  // Parameters written from the host are what the next Forward uses (bf16 copy refreshed):
  // all-zero weights give uniform logits, loss ln(vocab).
  std::vector<float> zeros(static_cast<size_t>(m->num_params()), 0.0f);
  ASSERT_TRUE(m->CopyParamsFromHost(zeros).ok());
  ASSERT_TRUE(m->Forward(batch).ok());
  EXPECT_NEAR(m->loss(), std::log(static_cast<float>(s.config.vocab)), 1e-3);

  const std::string d = DescribeCudaGpt(*m);
  EXPECT_NE(d.find("bf16"), std::string::npos) << d;
  EXPECT_NE(d.find("GeLU"), std::string::npos) << d;
  EXPECT_NE(d.find("total"), std::string::npos) << d;
  absl::StatusOr<std::unique_ptr<GptModel>> cpu = MakeCpuModel(s.config, s.B, s.T, 1);
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ(DescribeCudaGpt(**cpu), "");
}

TEST(CudaGptTest, OpTimerSeesEveryOp) {
  SKIP_WITHOUT_DEVICE();
  const RunSetup s = SmallSetup();
  std::unique_ptr<GptModel> m = MakeCuda(s, CudaPrecision::kFp32, false, 7, false);
  ASSERT_NE(m, nullptr);
  HostOpTimer timer;
  m->SetOpTimer(&timer);
  const Batch batch = RandomBatch(s.config, s.B, s.T, 2);
  ASSERT_TRUE(m->Forward(batch).ok());
  m->ZeroGrad();
  ASSERT_TRUE(m->Backward().ok());
  ASSERT_TRUE(m->Update(AdamWConfig(), 1).ok());
  m->SetOpTimer(nullptr);
  std::set<std::string> names;
  int64_t layernorm_calls = 0;
  for (const OpTime& t : timer.Totals()) {
    names.insert(t.op);
    if (t.op == "layernorm_forward") layernorm_calls = t.calls;
  }
  for (const char* op : {"encoder_forward",
                         "layernorm_forward",
                         "matmul_forward/qkv",
                         "attention_forward",
                         "matmul_forward/attproj",
                         "residual_forward",
                         "matmul_forward/fc",
                         "gelu_forward",
                         "matmul_forward/fcproj",
                         "matmul_forward/lm_head",
                         "crossentropy_forward",
                         "zero_grad",
                         "crossentropy_softmax_backward",
                         "matmul_backward/lm_head",
                         "layernorm_backward",
                         "matmul_backward/fcproj",
                         "gelu_backward",
                         "matmul_backward/fc",
                         "matmul_backward/attproj",
                         "attention_backward",
                         "matmul_backward/qkv",
                         "encoder_backward",
                         "adamw_update"}) {
    EXPECT_EQ(names.count(op), 1u) << op;
  }
  EXPECT_EQ(layernorm_calls, 2 * s.config.layers + 1);
}

// --- the train step as one CUDA graph (CudaGptOptions::cuda_graph) -------------------------------

int64_t OpCalls(OpTimer& timer) {
  int64_t calls = 0;
  for (const OpTime& t : timer.Totals()) calls += t.calls;
  return calls;
}

// Five TrainSteps of a graph model against five of a plain one from the same seed, with a new
// batch and a new learning rate every step (what must reach the replays through device memory).
// The emulator replays the very closures it recorded, so every loss and parameter must be equal
// bit for bit; on a GPU the embedding backward's atomics leave rounding differences.
void GraphStepsMatchUncapturedSteps(CudaPrecision precision, bool fuse) {
  SKIP_WITHOUT_DEVICE();
  const RunSetup s = SmallSetup();
  std::unique_ptr<GptModel> plain = MakeCuda(s, precision, fuse, 9, fuse);
  std::unique_ptr<GptModel> graph = MakeCuda(s, precision, fuse, 9, fuse, 0, /*cuda_graph=*/true);
  // A model that repeats step 2's AdamW arguments: what a graph that baked them would compute.
  std::unique_ptr<GptModel> stale = MakeCuda(s, precision, fuse, 9, fuse);
  ASSERT_TRUE(plain != nullptr && graph != nullptr && stale != nullptr);
  EXPECT_NE(DescribeCudaGpt(*graph).find("CUDA graph"), std::string::npos);
  EXPECT_EQ(DescribeCudaGpt(*plain).find("CUDA graph"), std::string::npos);
  // The graph's results equal the uncaptured ones: bit for bit under the emulator, else within
  // the graph check's tolerance.
  const bool exact = test::IsEmulated();
  auto expect_same = [exact](const std::vector<float>& got, const std::vector<float>& want,
                             const char* what) {
    if (exact) {
      EXPECT_EQ(got, want) << what;
    } else {
      EXPECT_LE(NormRelErr(got, want), kGraphCheckRelTolerance) << what;
    }
  };
  HostOpTimer timer;
  graph->SetOpTimer(&timer);
  auto opt_of = [](int step) {
    AdamWConfig opt;
    opt.lr = 2e-3f / static_cast<float>(step);
    return opt;
  };
  for (int step = 1; step <= 5; ++step) {
    const Batch batch = RandomBatch(s.config, s.B, s.T, 100 + step);
    timer.Reset();
    ASSERT_TRUE(plain->TrainStep(batch, opt_of(step), step).ok());
    const absl::Status st = graph->TrainStep(batch, opt_of(step), step);
    ASSERT_TRUE(st.ok()) << st;
    const int stale_step = step < 2 ? step : 2;
    ASSERT_TRUE(stale->TrainStep(batch, opt_of(stale_step), stale_step).ok());
    // Step 1 runs uncaptured and step 2 runs the capture's check uncaptured: the host issues
    // (and the timer sees) their ops. From step 3 the graph replays: the host issues none.
    if (step <= 2) {
      EXPECT_GT(OpCalls(timer), 0) << "step " << step;
    } else {
      EXPECT_EQ(OpCalls(timer), 0) << "step " << step;
    }
    if (exact) {
      EXPECT_EQ(graph->loss(), plain->loss()) << "step " << step;
    } else {
      EXPECT_NEAR(graph->loss(), plain->loss(), kGraphCheckRelTolerance * plain->loss()) << "step " << step;
    }
  }
  graph->SetOpTimer(nullptr);
  std::vector<float> p_plain, p_graph, p_stale;
  ASSERT_TRUE(plain->CopyParamsToHost(&p_plain).ok());
  ASSERT_TRUE(graph->CopyParamsToHost(&p_graph).ok());
  ASSERT_TRUE(stale->CopyParamsToHost(&p_stale).ok());
  expect_same(p_graph, p_plain, "params");
  // The comparison has the power to see a baked step: repeating step 2's arguments differs.
  EXPECT_GT(NormRelErr(p_stale, p_plain), 10 * kGraphCheckRelTolerance);

  // The separate calls still run (uncaptured) on a graph model, from the state the graph left.
  const Batch batch = RandomBatch(s.config, s.B, s.T, 200);
  std::vector<float> l_plain, l_graph;
  ASSERT_TRUE(plain->Forward(batch).ok());
  ASSERT_TRUE(graph->Forward(batch).ok());
  ASSERT_TRUE(plain->CopyLogitsToHost(&l_plain).ok());
  ASSERT_TRUE(graph->CopyLogitsToHost(&l_graph).ok());
  expect_same(l_graph, l_plain, "logits");
}

TEST(CudaGptGraphTest, Fp32GraphStepsMatchUncapturedSteps) {
  GraphStepsMatchUncapturedSteps(CudaPrecision::kFp32, false);
}
TEST(CudaGptGraphTest, Bf16FusedGraphStepsMatchUncapturedSteps) {
  GraphStepsMatchUncapturedSteps(CudaPrecision::kBf16, true);
}

TEST(CudaGptGraphTest, ReplayStepsCheckTheirInputs) {
  SKIP_WITHOUT_DEVICE();
  const RunSetup s = SmallSetup();
  std::unique_ptr<GptModel> m = MakeCuda(s, CudaPrecision::kFp32, false, 7, true, 0, /*cuda_graph=*/true);
  ASSERT_NE(m, nullptr);
  const Batch batch = RandomBatch(s.config, s.B, s.T, 3);
  for (int step = 1; step <= 3; ++step) ASSERT_TRUE(m->TrainStep(batch, AdamWConfig(), step).ok());
  EXPECT_EQ(m->TrainStep(batch, AdamWConfig(), 0).code(), absl::StatusCode::kInvalidArgument);
  AdamWConfig negative;
  negative.lr = -1;
  EXPECT_EQ(m->TrainStep(batch, negative, 4).code(), absl::StatusCode::kInvalidArgument);
  Batch bad = batch;
  bad.targets[1] = -1;
  EXPECT_EQ(m->TrainStep(bad, AdamWConfig(), 4).code(), absl::StatusCode::kInvalidArgument);
  // After a replay the logits are gradients, as after any step.
  std::vector<float> logits;
  EXPECT_EQ(m->CopyLogitsToHost(&logits).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(std::isfinite(m->loss()));
}

TEST(CudaGptGraphTest, TheCheckAcceptsRoundingAndRefusesADifference) {
  GraphCheck same{10.5f, 10.5f, 10.25f, 10.25f};
  EXPECT_TRUE(CheckGraphAgreement(same).ok());
  GraphCheck rounding{10.5f, 10.5f + 1e-5f, 10.25f, 10.25f - 1e-5f};
  EXPECT_TRUE(CheckGraphAgreement(rounding).ok());
  GraphCheck probe_off{10.5f, 10.5f, 10.25f, 10.5f};
  const absl::Status st = CheckGraphAgreement(probe_off);
  EXPECT_EQ(st.code(), absl::StatusCode::kInternal);
  const std::string msg(st.message());
  EXPECT_NE(msg.find("--cuda_graph"), std::string::npos) << msg;
  EXPECT_NE(msg.find("10.25"), std::string::npos) << msg;
  EXPECT_NE(msg.find("10.5"), std::string::npos) << msg;
  GraphCheck nan{10.5f, std::nanf(""), 10.25f, 10.25f};
  EXPECT_FALSE(CheckGraphAgreement(nan).ok());
}

TEST(CudaGptTest, BatchTooLargeIsAnErrorBeforeAllocation) {
  SKIP_WITHOUT_DEVICE();
  RunSetup s{*GptPreset("gpt2"), 4096, 1024};  // terabytes of activations
  CudaGptOptions options;
  options.device_name = "the test device";
  absl::StatusOr<std::unique_ptr<GptModel>> m =
      CreateCudaGpt(s.config, s.B, s.T, 1, options, test::MakeGemmRunner());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kResourceExhausted);
  const std::string msg(m.status().message());
  EXPECT_NE(msg.find("need"), std::string::npos) << msg;
  EXPECT_NE(msg.find("free"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the test device"), std::string::npos) << msg;
  // Invalid shapes are InvalidArgument.
  EXPECT_EQ(CreateCudaGpt(s.config, 1, 2048, 1, options, test::MakeGemmRunner()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cuda
}  // namespace model
