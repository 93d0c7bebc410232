// The whole CUDA train step with cuDNN's fused attention (CudaGptOptions::cudnn_attention, bf16):
// on a GPU, one step against the CPU model and against the same model on the attention kernels,
// with the FLOPs cuDNN reports; everywhere, the creation errors (fp32 asked for cuDNN; the
// emulator's build, which has no cuDNN). Built twice like cuda_gpt_test.cc.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "accounting/flop_counter.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/cpu_model.h"
#include "model/cuda/attention_cudnn.h"
#include "model/cuda/cuda_gpt.h"
#include "model/cuda/test_backend.h"
#include "model/data/batch_source.h"
#include "model/gpt_config.h"
#include "model/param_layout.h"
#include "model/threads.h"

namespace model {
namespace cuda {
namespace {

using test::NormRelErr;
using ::testing::HasSubstr;

// test-mini on a GPU (HS = 32); test-tiny in the emulator (HS = 8).
struct RunShape {
  GptConfig config;
  int B, T;
};
RunShape SmallSetup() {
  if (test::IsEmulated()) return RunShape{*GptPreset("test-tiny"), 2, 16};
  return RunShape{*GptPreset("test-mini"), 4, 64};
}

absl::StatusOr<std::unique_ptr<GptModel>> Make(const RunShape& s, CudaPrecision precision, bool cudnn) {
  CudaGptOptions options;
  options.precision = precision;
  options.cudnn_attention = cudnn;
  options.attention_choice = cudnn ? "attention_impl: cudnn (test)" : "attention_impl: kernels (test)";
  return CreateCudaGpt(s.config, s.B, s.T, /*seed=*/7, options, test::MakeGemmRunner());
}

Batch RandomBatch(const GptConfig& c, int B, int T) {
  absl::StatusOr<Batch> b = FixedRandomBatch(B, T, c.vocab, 11);
  if (!b.ok()) std::abort();  // the tests' shapes are valid
  return *std::move(b);
}

struct StepResult {
  std::vector<float> logits, grads;
  float loss = 0;
  accounting::FlopCounter flops;
};

void RunStep(GptModel& m, const Batch& batch, StepResult* r) {
  accounting::ScopedFlopCounter scope(&r->flops);
  ASSERT_TRUE(m.Forward(batch).ok());
  ASSERT_TRUE(m.CopyLogitsToHost(&r->logits).ok());
  r->loss = m.loss();
  m.ZeroGrad();
  absl::Status back = m.Backward();
  ASSERT_TRUE(back.ok()) << back;
  ASSERT_TRUE(m.CopyGradsToHost(&r->grads).ok());
}

TEST(CudaGptCudnnTest, CreationErrorsNameTheCause) {
  SKIP_WITHOUT_DEVICE();
  const RunShape s = SmallSetup();
  absl::StatusOr<std::unique_ptr<GptModel>> fp32 = Make(s, CudaPrecision::kFp32, true);
  ASSERT_FALSE(fp32.ok());
  EXPECT_EQ(fp32.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(fp32.status().message()), HasSubstr("bf16 only; the precision is fp32"));
  absl::StatusOr<std::unique_ptr<GptModel>> bf16 = Make(s, CudaPrecision::kBf16, true);
  if (test::IsEmulated()) {
    ASSERT_FALSE(bf16.ok());
    EXPECT_EQ(bf16.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(std::string(bf16.status().message()), HasSubstr("cuDNN attention at B=2 T=16 NH=2 HS=8"));
    EXPECT_THAT(std::string(bf16.status().message()), HasSubstr("has no cuDNN"));
  } else {
    ASSERT_TRUE(bf16.ok()) << bf16.status();
    EXPECT_THAT(DescribeCudaGpt(**bf16), HasSubstr("cuDNN fused flash attention"));
    EXPECT_EQ(CudaGptAttentionChoice(**bf16), "attention_impl: cudnn (test)");
  }
}

// One bf16 step with cuDNN's attention against the CPU model and the kernels (GPU only).
void CudnnStepMatches(const RunShape& s) {
  SetNumThreads(1);
  SCOPED_TRACE(DescribeConfig(s.config));
  absl::StatusOr<std::unique_ptr<GptModel>> cpu = MakeCpuModel(s.config, s.B, s.T, 7);
  absl::StatusOr<std::unique_ptr<GptModel>> kernels = Make(s, CudaPrecision::kBf16, false);
  absl::StatusOr<std::unique_ptr<GptModel>> cudnn = Make(s, CudaPrecision::kBf16, true);
  ASSERT_TRUE(cpu.ok() && kernels.ok() && cudnn.ok()) << cudnn.status();
  const Batch batch = RandomBatch(s.config, s.B, s.T);
  StepResult c, k, d;
  RunStep(**cpu, batch, &c);
  RunStep(**kernels, batch, &k);
  RunStep(**cudnn, batch, &d);
  // bf16 tolerances of cuda_gpt_test.cc (relative L2 per tensor).
  EXPECT_LE(NormRelErr(d.logits, c.logits), 3e-2);
  EXPECT_NEAR(d.loss, c.loss, 1e-2 * c.loss);
  EXPECT_NEAR(d.loss, k.loss, 1e-2 * k.loss);
  const ParamLayout layout(s.config);
  for (const ParamTensorInfo& t : layout.tensors()) {
    if (t.size == 0) continue;
    const auto slice = [&t](const std::vector<float>& v) {
      return std::vector<float>(v.begin() + t.offset, v.begin() + t.offset + t.size);
    };
    EXPECT_LE(NormRelErr(slice(d.grads), slice(c.grads)), 8e-2) << "gradient of " << t.name << " vs the CPU";
    EXPECT_LE(NormRelErr(slice(d.grads), slice(k.grads)), 8e-2)
        << "gradient of " << t.name << " vs the kernels";
  }
  // FLOPs: every non-attention tag as the kernels report it; attention as cuDNN's triangle.
  accounting::FlopCounter want;
  {
    accounting::ScopedFlopCounter scope(&want);
    const AttentionShape a{s.B, s.T, s.config.heads, s.config.head_size(), s.config.kv_head_count()};
    for (int l = 0; l < s.config.layers; ++l) {
      CountCudnnAttentionForwardFlops(a);
      CountCudnnAttentionBackwardFlops(a);
    }
  }
  for (const auto& [tag, flops] : k.flops.by_tag()) {
    if (tag.rfind("attention_", 0) != 0) {
      EXPECT_DOUBLE_EQ(d.flops.by_tag()[tag], flops) << tag;
    }
  }
  for (const auto& [tag, flops] : want.by_tag()) EXPECT_DOUBLE_EQ(d.flops.by_tag()[tag], flops) << tag;
}

TEST(CudaGptCudnnTest, Bf16StepMatchesTheCpuModelAndTheKernels) {
  SKIP_WITHOUT_DEVICE();
  if (test::IsEmulated()) GTEST_SKIP() << "cuDNN runs on a GPU only (the emulator's build has none)";
  CudnnStepMatches(SmallSetup());
}

// The Llama family on cuDNN: K and V with fewer heads (cuDNN's grouped-query attention) read from
// q | k | v rows of C + 2 * KV * HS that RoPE rotated in place, RMSNorm, SwiGLU, no biases.
TEST(CudaGptCudnnTest, Bf16LlamaStepMatchesTheCpuModelAndTheKernels) {
  SKIP_WITHOUT_DEVICE();
  if (test::IsEmulated()) GTEST_SKIP() << "cuDNN runs on a GPU only (the emulator's build has none)";
  RunShape s{*GptPreset("llama-tiny"), 4, 64};
  s.config.layers = 4, s.config.width = 256, s.config.heads = 8, s.config.kv_heads = 2;  // HS = 32
  s.config.mlp_hidden = 688, s.config.vocab = 1000, s.config.padded_vocab = 1024, s.config.block = 256;
  CudnnStepMatches(s);
}

}  // namespace
}  // namespace cuda
}  // namespace model
