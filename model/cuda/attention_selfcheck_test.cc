// The start-up self-check, built twice like the other *_emu / *_cuda tests: in the emulator the
// kernels stand on both sides (they must agree with themselves, and a perturbed gradient must
// fail naming the tensor and element) and cuDNN is absent; on a GPU cuDNN must match the kernels.
#include "model/cuda/attention_selfcheck.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/cuda/attention_cudnn.h"
#include "model/cuda/device_api.h"
#include "model/cuda/test_backend.h"

namespace model {
namespace cuda {
namespace {

using ::testing::HasSubstr;

// Small in the emulator; GPT-2's heads and head size on a GPU.
AttentionShape TestShape() {
  return test::IsEmulated() ? AttentionShape{2, 16, 2, 8} : AttentionShape{2, 128, 12, 64};
}

// The kernels, then one element of one gradient changed by `delta` on the device.
class Perturbed final : public AttentionUnderTest {
 public:
  Perturbed(std::unique_ptr<AttentionUnderTest> inner, const AttentionShape& s, int64_t index, float delta)
      : inner_(std::move(inner)), s_(s), index_(index), delta_(delta) {}
  std::string name() const override { return inner_->name() + "+perturbed"; }
  absl::Status Forward(Bf16* out, const Bf16* qkv) override { return inner_->Forward(out, qkv); }
  absl::Status Backward(Bf16* dqkv, const Bf16* dout, const Bf16* qkv, const Bf16* out) override {
    if (auto st = inner_->Backward(dqkv, dout, qkv, out); !st.ok()) return st;
    Bf16 x;
    CopyToHost(&x, dqkv + index_, sizeof(Bf16));
    x = FloatToBf16(Bf16ToFloat(x) + delta_);
    CopyToDevice(dqkv + index_, &x, sizeof(Bf16));
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<AttentionUnderTest> inner_;
  AttentionShape s_;
  int64_t index_;
  float delta_;
};

TEST(AttentionSelfCheck, ShapeKeepsHeadsAndHeadSizeAndCapsTheSequence) {
  const AttentionShape gpt2 = SelfCheckShape({12, 1024, 12, 64});
  EXPECT_EQ(gpt2.ToString(), "B=2 T=128 NH=12 HS=64");
  EXPECT_EQ(SelfCheckShape({1, 40, 3, 16}).ToString(), "B=2 T=40 NH=3 HS=16");
}

TEST(AttentionSelfCheck, TheKernelsAgreeWithThemselves) {
  SKIP_WITHOUT_DEVICE();
  std::unique_ptr<GemmRunner> gemm = test::MakeGemmRunner();
  const AttentionShape s = TestShape();
  auto a = MakeKernelAttention(s, gemm.get());
  auto b = MakeKernelAttention(s, gemm.get());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(CheckAttentionAgainst(**a, **b, s, /*seed=*/7).ok()) << CheckAttentionAgainst(**a, **b, s, 7);
  // The inputs are not degenerate: the output and every gradient have non-zero elements.
  absl::StatusOr<AttentionResults> r = RunAttentionOnce(**a, s, 7);
  ASSERT_TRUE(r.ok());
  float out_max = 0, grad_max = 0;
  for (float x : r->out) out_max = std::max(out_max, std::fabs(x));
  for (float x : r->dqkv) grad_max = std::max(grad_max, std::fabs(x));
  EXPECT_GT(out_max, 0.1f);
  EXPECT_GT(grad_max, 0.1f);
}

TEST(AttentionSelfCheck, APerturbedGradientFailsNamingTheTensorAndTheElement) {
  SKIP_WITHOUT_DEVICE();
  std::unique_ptr<GemmRunner> gemm = test::MakeGemmRunner();
  const AttentionShape s = TestShape();
  // dk (part 1 of (B, T, 3, NH, HS)) at b=1, t=5, h=1, e=3.
  const int64_t index = ((1 * s.T + 5) * 3 + 1) * s.C() + 1 * s.HS + 3;
  auto reference = MakeKernelAttention(s, gemm.get());
  auto inner = MakeKernelAttention(s, gemm.get());
  ASSERT_TRUE(reference.ok() && inner.ok());
  Perturbed perturbed(*std::move(inner), s, index, /*delta=*/4.0f);
  const absl::Status st = CheckAttentionAgainst(**reference, perturbed, s, /*seed=*/7);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()),
              HasSubstr(absl::StrCat("kernels+perturbed vs kernels at ", s.ToString(),
                                     ": dk: worst element b=1 t=5 h=1 e=3")));
}

// Grouped-query attention (NKV < NH): the kernels agree with themselves on (B, T, QKV) rows of
// C + 2 * NKV * HS, and a perturbed K/V head's gradient is named by its K/V head.
TEST(AttentionSelfCheck, GroupedQueryKernelsAgreeAndAPerturbedKvHeadIsNamed) {
  SKIP_WITHOUT_DEVICE();
  std::unique_ptr<GemmRunner> gemm = test::MakeGemmRunner();
  const AttentionShape s =
      test::IsEmulated() ? AttentionShape{2, 16, 4, 8, 2} : AttentionShape{2, 128, 8, 64, 2};
  EXPECT_EQ(SelfCheckShape(AttentionShape{4, 1024, 32, 128, 8}).ToString(), "B=2 T=128 NH=32 HS=128 NKV=8");
  auto a = MakeKernelAttention(s, gemm.get());
  auto b = MakeKernelAttention(s, gemm.get());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(CheckAttentionAgainst(**a, **b, s, /*seed=*/9).ok()) << CheckAttentionAgainst(**a, **b, s, 9);
  // dv of K/V head 1, channel 2 at b=0, t=7.
  const int64_t index = (0 * s.T + 7) * s.QKV() + s.C() + s.KVW() + 1 * s.HS + 2;
  auto inner = MakeKernelAttention(s, gemm.get());
  ASSERT_TRUE(inner.ok());
  Perturbed perturbed(*std::move(inner), s, index, /*delta=*/4.0f);
  const absl::Status st = CheckAttentionAgainst(**a, perturbed, s, /*seed=*/9);
  EXPECT_THAT(std::string(st.message()), HasSubstr("dv: worst element b=0 t=7 h=1 e=2"));
}

TEST(AttentionSelfCheck, CudnnMatchesTheKernelsOrSaysWhyNot) {
  SKIP_WITHOUT_DEVICE();
  std::unique_ptr<GemmRunner> gemm = test::MakeGemmRunner();
  if (test::IsEmulated()) {
    // No cuDNN in the emulator's build: the check answers Unavailable, saying so.
    const absl::Status st = CudnnSelfCheck(TestShape(), gemm.get());
    EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(std::string(st.message()), HasSubstr("has no cuDNN"));
    EXPECT_FALSE(ProbeCudnn().loaded);
    return;
  }
  const CudnnStatus probe = ProbeCudnn();
  ASSERT_TRUE(probe.loaded) << probe.reason;
  // The model's start-up check at GPT-2 124M's attention shape, then a direct comparison at a
  // sequence that is not a multiple of cuDNN's tiles.
  const absl::Status check = CudnnSelfCheck({12, 1024, 12, 64}, gemm.get());
  EXPECT_TRUE(check.ok()) << check;
  const AttentionShape odd{2, 200, 4, 64};
  auto kernels = MakeKernelAttention(odd, gemm.get());
  auto cudnn = MakeCudnnAttention(odd);
  ASSERT_TRUE(kernels.ok() && cudnn.ok()) << kernels.status() << " " << cudnn.status();
  const absl::Status same = CheckAttentionAgainst(**kernels, **cudnn, odd, /*seed=*/11);
  EXPECT_TRUE(same.ok()) << same;
}

// cuDNN with fewer K/V heads than query heads (its K and V tensors have NKV heads, read with the
// strides of q | k | v rows of QKV): the start-up check at llama-124m's heads (NH 12, NKV 4) and
// at Llama 3 8B's (NH 32, NKV 8, HS 128), and multi-query attention (NKV 1) at T = 200.
TEST(AttentionSelfCheck, CudnnMatchesTheKernelsWithGroupedQueryHeads) {
  SKIP_WITHOUT_DEVICE();
  if (test::IsEmulated())
    GTEST_SKIP() << "no cuDNN in the emulator's build (the GPU twin of this test runs it)";
  const CudnnStatus probe = ProbeCudnn();
  ASSERT_TRUE(probe.loaded) << probe.reason;
  std::unique_ptr<GemmRunner> gemm = test::MakeGemmRunner();
  for (const AttentionShape& model :
       {AttentionShape{4, 1024, 12, 64, 4}, AttentionShape{1, 512, 32, 128, 8}}) {
    const absl::Status check = CudnnSelfCheck(model, gemm.get());
    EXPECT_TRUE(check.ok()) << check;
  }
  const AttentionShape mqa{2, 200, 4, 64, 1};
  auto kernels = MakeKernelAttention(mqa, gemm.get());
  auto cudnn = MakeCudnnAttention(mqa);
  ASSERT_TRUE(kernels.ok() && cudnn.ok()) << kernels.status() << " " << cudnn.status();
  const absl::Status same = CheckAttentionAgainst(**kernels, **cudnn, mqa, /*seed=*/17);
  EXPECT_TRUE(same.ok()) << same;
}

// The numerics at the shape gpt_step trains (GPT-2 124M, B=12, T=1024), not only at the start-up
// check's B=2, T=128: one forward and backward of cuDNN against the kernels, out, dq, dk and dv
// each within the bf16 bound (attention_compare.h). A stride or layout bug that only shows at the
// real shape fails here. tools/gpu/gpu_check.sh runs this case as its own step
// (attention_train_shape), right after the two gpt_step runs whose losses it compares.
TEST(AttentionSelfCheck, CudnnMatchesTheKernelsAtTheTrainShape) {
  SKIP_WITHOUT_DEVICE();
  if (test::IsEmulated())
    GTEST_SKIP() << "no cuDNN in the emulator's build (the GPU twin of this test runs it)";
  const CudnnStatus probe = ProbeCudnn();
  ASSERT_TRUE(probe.loaded) << probe.reason;
  std::unique_ptr<GemmRunner> gemm = test::MakeGemmRunner();
  const AttentionShape train{12, 1024, 12, 64};
  auto kernels = MakeKernelAttention(train, gemm.get());
  auto cudnn = MakeCudnnAttention(train);
  ASSERT_TRUE(kernels.ok() && cudnn.ok()) << kernels.status() << " " << cudnn.status();
  const absl::Status same = CheckAttentionAgainst(**kernels, **cudnn, train, /*seed=*/13);
  EXPECT_TRUE(same.ok()) << same;
}

}  // namespace
}  // namespace cuda
}  // namespace model
