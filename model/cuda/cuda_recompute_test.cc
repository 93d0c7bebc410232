// Activation recomputation in the CUDA model (CudaGptOptions::recompute): at every level, one
// train step's loss and gradients against the same model keeping everything (kNone), and the
// FLOPs the recomputed forward issues against accounting's prediction. Built twice like
// cuda_gpt_test.cc: cuda_recompute_emu_test in the kernel emulator with the reference GEMM, where
// the recomputed kernels give the same bits and so equal gradients bit for bit;
// cuda_recompute_cuda_test on a GPU (skipped without one), where the gradient kernels' fp32
// atomics may order their sums differently from run to run, so within 1e-5 relative.
#include <memory>
#include <string>
#include <vector>

#include "accounting/flop_counter.h"
#include "accounting/gpt_flops.h"
#include "gtest/gtest.h"
#include "model/cuda/cuda_gpt.h"
#include "model/cuda/test_backend.h"
#include "model/data/batch_source.h"
#include "model/gpt_config.h"
#include "model/param_layout.h"

namespace model {
namespace cuda {
namespace {

using accounting::Recompute;
using test::NormRelErr;

struct RunSetup {
  GptConfig config;
  int B, T;
};

// GPT-2's test-tiny and llama-tiny in the emulator; test-mini and a Llama of its size on a GPU.
RunSetup FamilySetup(const std::string& family) {
  const bool emu = test::IsEmulated();
  if (family == "gpt2") return emu ? RunSetup{*GptPreset("test-tiny"), 2, 16} : RunSetup{*GptPreset("test-mini"), 4, 64};
  GptConfig c = *GptPreset("llama-tiny");
  if (emu) return RunSetup{c, 2, 16};
  c.layers = 4, c.width = 256, c.heads = 8, c.kv_heads = 2, c.mlp_hidden = 688;
  c.vocab = 1000, c.padded_vocab = 1024, c.block = 256;
  return RunSetup{c, 4, 64};
}

// One step of a fresh model (seed 7) on one batch: the loss, the gradients and the FLOPs issued.
struct StepResult {
  float loss = 0;
  std::vector<float> grads;
  double flops = 0;
};

StepResult OneStep(const RunSetup& s, CudaPrecision precision, Recompute recompute, bool cudnn = false) {
  CudaGptOptions options;
  options.precision = precision;
  options.fuse_gelu = false;  // kActivation turns it off; so does every level here, to compare bits
  options.recompute = recompute;
  options.cudnn_attention = cudnn;
  absl::StatusOr<std::unique_ptr<GptModel>> m =
      CreateCudaGpt(s.config, s.B, s.T, 7, options, test::MakeGemmRunner());
  EXPECT_TRUE(m.ok()) << m.status();
  StepResult r;
  if (!m.ok()) return r;
  absl::StatusOr<Batch> batch = FixedRandomBatch(s.B, s.T, s.config.vocab, 11);
  EXPECT_TRUE(batch.ok());
  if (!batch.ok()) return r;
  accounting::FlopCounter counter;
  {
    accounting::ScopedFlopCounter scope(&counter);
    EXPECT_TRUE((*m)->Forward(*batch).ok());
    (*m)->ZeroGrad();
    const absl::Status st = (*m)->Backward();
    EXPECT_TRUE(st.ok()) << st;
  }
  r.loss = (*m)->loss();
  EXPECT_TRUE((*m)->CopyGradsToHost(&r.grads).ok());
  r.flops = counter.total();
  const std::string described = DescribeCudaGpt(**m);
  if (recompute != Recompute::kNone) {
    EXPECT_NE(described.find(std::string("recompute ") + accounting::RecomputeName(recompute)), std::string::npos)
        << described;
  }
  return r;
}

void LevelsMatchNone(const std::string& family, CudaPrecision precision, bool cudnn = false) {
  SKIP_WITHOUT_DEVICE();
  const RunSetup s = FamilySetup(family);
  SCOPED_TRACE(DescribeConfig(s.config));
  const StepResult none = OneStep(s, precision, Recompute::kNone, cudnn);
  ASSERT_FALSE(none.grads.empty());
  for (Recompute level : {Recompute::kActivation, Recompute::kAttention, Recompute::kBlock}) {
    SCOPED_TRACE(accounting::RecomputeName(level));
    const StepResult r = OneStep(s, precision, level, cudnn);
    ASSERT_EQ(r.grads.size(), none.grads.size());
    if (test::IsEmulated()) {
      EXPECT_EQ(r.loss, none.loss);
      EXPECT_EQ(r.grads, none.grads);  // bit for bit: the same kernels on the same inputs
    } else {
      EXPECT_NEAR(r.loss, none.loss, 1e-6 * none.loss);
      EXPECT_LE(NormRelErr(r.grads, none.grads), 1e-5);
    }
    // The issued FLOPs grow by what accounting predicts the level recomputes (the counter sees
    // the forward's matmuls again: none for the activation, QK^T and AV for the attention core,
    // the whole block for kBlock), within 1%. cuDNN counts the causal triangle, T(T+1)/2 pairs,
    // so its prediction is the causal-halved convention's; the kernels issue the full T x T here
    // (T within one attention block).
    const accounting::AttentionConvention convention =
        cudnn ? accounting::AttentionConvention::kCausalHalved : accounting::AttentionConvention::kFull;
    absl::StatusOr<accounting::StepFlops> f =
        accounting::GptStepFlops(ToGptShape(s.config), s.T, s.B, 1, convention, level);
    ASSERT_TRUE(f.ok());
    const double predicted = f->hardware_flops_per_step / f->model_flops_per_step;
    EXPECT_NEAR(r.flops / none.flops, predicted, 0.01 * predicted)
        << r.flops << " issued vs " << none.flops << " with none";
  }
}

TEST(CudaRecompute, Gpt2Fp32LevelsMatchNone) { LevelsMatchNone("gpt2", CudaPrecision::kFp32); }
TEST(CudaRecompute, Gpt2Bf16LevelsMatchNone) { LevelsMatchNone("gpt2", CudaPrecision::kBf16); }
TEST(CudaRecompute, LlamaFp32LevelsMatchNone) { LevelsMatchNone("llama", CudaPrecision::kFp32); }
TEST(CudaRecompute, LlamaBf16LevelsMatchNone) { LevelsMatchNone("llama", CudaPrecision::kBf16); }
TEST(CudaRecompute, CudnnLevelsMatchNone) {
  if (test::IsEmulated()) GTEST_SKIP() << "cuDNN's attention runs on a GPU only";
  LevelsMatchNone("gpt2", CudaPrecision::kBf16, /*cudnn=*/true);
  LevelsMatchNone("llama", CudaPrecision::kBf16, /*cudnn=*/true);
}

// accounting's 'full' (a whole extra forward, not a level of the model) is refused by name.
// (What each level frees is cuda_memory_test's.)
TEST(CudaRecompute, FullIsRefused) {
  const RunSetup s = FamilySetup("gpt2");
  SKIP_WITHOUT_DEVICE();
  CudaGptOptions options;
  options.recompute = Recompute::kFull;
  absl::StatusOr<std::unique_ptr<GptModel>> m =
      CreateCudaGpt(s.config, s.B, s.T, 7, options, test::MakeGemmRunner());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("recompute 'full'"), std::string::npos) << m.status();
}

}  // namespace
}  // namespace cuda
}  // namespace model
