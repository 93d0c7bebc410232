// DecideAttention: every branch, with fake probes and self-checks that record whether they ran.
#include "model/cuda/attention_choice.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace model {
namespace cuda {
namespace {

using ::testing::HasSubstr;

CudnnStatus Loaded(int64_t version = 91900) { return CudnnStatus{true, version, ""}; }
CudnnStatus Missing() { return CudnnStatus{false, 0, "cannot open libcudnn.so.9: not found"}; }

// A self-check that counts its calls and answers `result`.
struct FakeCheck {
  absl::Status result = absl::OkStatus();
  int calls = 0;
  std::function<absl::Status()> fn() {
    return [this] {
      ++calls;
      return result;
    };
  }
};

// DecideAttention with `check` as the self-check, at bf16 with cuDNN 9.19.0 unless told otherwise.
absl::StatusOr<AttentionDecision> Decide(AttentionImpl requested, FakeCheck& check,
                                         const CudnnStatus& cudnn = Loaded(),
                                         CudaPrecision precision = CudaPrecision::kBf16) {
  return DecideAttention(requested, precision, cudnn, check.fn());
}

TEST(AttentionChoice, ParsesTheThreeNamesAndRejectsOthersNamingTheValue) {
  EXPECT_EQ(*ParseAttentionImpl("auto"), AttentionImpl::kAuto);
  EXPECT_EQ(*ParseAttentionImpl("cudnn"), AttentionImpl::kCudnn);
  EXPECT_EQ(*ParseAttentionImpl("kernels"), AttentionImpl::kKernels);
  for (AttentionImpl impl : {AttentionImpl::kAuto, AttentionImpl::kCudnn, AttentionImpl::kKernels}) {
    EXPECT_EQ(*ParseAttentionImpl(AttentionImplName(impl)), impl);
  }
  absl::StatusOr<AttentionImpl> bad = ParseAttentionImpl("flash");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("--attention_impl: 'flash'"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("cudnn or kernels"));
}

TEST(AttentionChoice, VersionNames) {
  EXPECT_EQ(CudnnVersionName(91900), "9.19.0");
  EXPECT_EQ(CudnnVersionName(90102), "9.1.2");
  EXPECT_EQ(CudnnVersionName(kMinCudnnVersion), "9.0.0");
}

// Asked by name (and usable), the kernels or cuDNN run as asked: no self-check, not even one
// that would fail.
TEST(AttentionChoice, AskedByNameRunsWithoutTheSelfCheck) {
  const struct {
    AttentionImpl requested;
    bool cudnn;
    const char* line;
  } cases[] = {
      {AttentionImpl::kKernels, false, "attention_impl: kernels (--attention_impl=kernels)"},
      {AttentionImpl::kCudnn, true, "attention_impl: cudnn (--attention_impl=cudnn, cuDNN 9.19.0)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(AttentionImplName(c.requested));
    FakeCheck check;
    check.result = absl::InternalError("would fail");
    absl::StatusOr<AttentionDecision> d = Decide(c.requested, check);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->cudnn, c.cudnn);
    EXPECT_EQ(d->line, c.line);
    EXPECT_EQ(check.calls, 0);
  }
}

TEST(AttentionChoice, Fp32AndTf32TakeTheKernelsOnAutoAndAreAnErrorForCudnn) {
  for (CudaPrecision p : {CudaPrecision::kFp32, CudaPrecision::kTf32}) {
    FakeCheck check;
    absl::StatusOr<AttentionDecision> d = Decide(AttentionImpl::kAuto, check, Loaded(), p);
    ASSERT_TRUE(d.ok());
    EXPECT_FALSE(d->cudnn);
    EXPECT_THAT(d->line, HasSubstr(absl::StrCat("bf16 only; dtype is ", PrecisionName(p))));
    absl::StatusOr<AttentionDecision> e = Decide(AttentionImpl::kCudnn, check, Loaded(), p);
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(e.status().message()), HasSubstr(absl::StrCat("dtype is ", PrecisionName(p))));
    EXPECT_EQ(check.calls, 0);
  }
}

TEST(AttentionChoice, NoCudnnOrAnOldOneFallsBackOnAutoAndFailsForCudnn) {
  for (const CudnnStatus& probe : {Missing(), Loaded(80907)}) {
    FakeCheck check;
    absl::StatusOr<AttentionDecision> d = Decide(AttentionImpl::kAuto, check, probe);
    ASSERT_TRUE(d.ok());
    EXPECT_FALSE(d->cudnn);
    const std::string why = probe.loaded ? "cuDNN 8.9.7 is older than 9.0.0" : "libcudnn.so.9: not found";
    EXPECT_THAT(d->line, HasSubstr(why));
    absl::StatusOr<AttentionDecision> e = Decide(AttentionImpl::kCudnn, check, probe);
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(std::string(e.status().message()), HasSubstr(why));
    EXPECT_EQ(check.calls, 0);
  }
}

TEST(AttentionChoice, AutoUsesCudnnOnlyWhenTheSelfCheckPasses) {
  FakeCheck pass;
  absl::StatusOr<AttentionDecision> d = Decide(AttentionImpl::kAuto, pass);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->cudnn);
  EXPECT_THAT(d->line, HasSubstr("attention_impl: cudnn (auto: cuDNN 9.19.0"));
  EXPECT_EQ(pass.calls, 1);

  FakeCheck fail;
  fail.result = absl::InvalidArgumentError("dk: worst element b=1 t=3 h=0 e=2: got 9, want 1");
  absl::StatusOr<AttentionDecision> k = Decide(AttentionImpl::kAuto, fail);
  ASSERT_TRUE(k.ok());
  EXPECT_FALSE(k->cudnn);
  EXPECT_THAT(k->line, HasSubstr("attention_impl: kernels (auto: cuDNN 9.19.0 failed the start-up check"));
  EXPECT_THAT(k->line, HasSubstr("dk: worst element b=1 t=3 h=0 e=2"));
  EXPECT_EQ(k->line.find('\n'), std::string::npos);  // one line
  EXPECT_EQ(fail.calls, 1);
}

// --cuda_graph with cuDNN <= 9.15.0 and T % 128 != 0: cudnn-frontend's padding-mask workaround
// copies from pageable host memory at each execute, which a capture does not allow.
TEST(AttentionChoice, CaptureIsRefusedWhereTheFrontendCopiesFromPageableMemory) {
  EXPECT_EQ(CudnnCaptureHazard(91500, 1024), "");  // a multiple of 128: no workaround
  EXPECT_EQ(CudnnCaptureHazard(91600, 1000), "");  // 9.16.0: no workaround
  EXPECT_EQ(CudnnCaptureHazard(91500, 1000),
            "cuDNN 9.15.0 (9.15.0 or older) at T=1000 (not a multiple of 128) makes cudnn-frontend copy from "
            "pageable host memory at each execute, which a CUDA graph capture does not allow");

  const AttentionUse graph_1000{true, 1000}, graph_1024{true, 1024}, plain_1000{false, 1000};
  FakeCheck check;
  // cudnn asked: an error naming both the version and T, before any self-check.
  absl::StatusOr<AttentionDecision> e =
      DecideAttention(AttentionImpl::kCudnn, CudaPrecision::kBf16, Loaded(91500), check.fn(), graph_1000);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(e.status().message()),
              HasSubstr("--attention_impl=cudnn with --cuda_graph: cuDNN 9.15.0 (9.15.0 or older) at T=1000"));
  // auto: the kernels, saying why; no self-check spent on a cuDNN it will not use.
  absl::StatusOr<AttentionDecision> a =
      DecideAttention(AttentionImpl::kAuto, CudaPrecision::kBf16, Loaded(91400), check.fn(), graph_1000);
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(a->cudnn);
  EXPECT_THAT(a->line, HasSubstr("attention_impl: kernels (auto: --cuda_graph: cuDNN 9.14.0"));
  EXPECT_EQ(check.calls, 0);
  // Unaffected: T a multiple of 128, no capture, or a newer cuDNN.
  for (const auto& [version, use] : {std::pair{91500, graph_1024}, std::pair{91500, plain_1000},
                                     std::pair{91900, graph_1000}}) {
    absl::StatusOr<AttentionDecision> ok =
        DecideAttention(AttentionImpl::kCudnn, CudaPrecision::kBf16, Loaded(version), check.fn(), use);
    ASSERT_TRUE(ok.ok()) << ok.status();
    EXPECT_TRUE(ok->cudnn);
  }
}

// The JSON record of every decision line DecideAttention writes: what ran, never why.
TEST(AttentionChoice, TheRecordNamesWhatRanForEveryDecision) {
  FakeCheck pass, fail{absl::InternalError("dq differs")};
  EXPECT_EQ(AttentionImplRecord(Decide(AttentionImpl::kAuto, pass)->line), "cudnn");
  EXPECT_EQ(AttentionImplRecord(Decide(AttentionImpl::kCudnn, pass)->line), "cudnn");
  EXPECT_EQ(AttentionImplRecord(Decide(AttentionImpl::kKernels, pass)->line), "kernels");
  // auto that fell back, for each reason: the kernels, whatever the line goes on to say.
  EXPECT_EQ(AttentionImplRecord(Decide(AttentionImpl::kAuto, fail)->line), "kernels");
  EXPECT_EQ(AttentionImplRecord(Decide(AttentionImpl::kAuto, pass, Missing())->line), "kernels");
  EXPECT_EQ(AttentionImplRecord(Decide(AttentionImpl::kAuto, pass, Loaded(90000 - 1))->line), "kernels");
  EXPECT_EQ(AttentionImplRecord(Decide(AttentionImpl::kAuto, pass, Loaded(), CudaPrecision::kFp32)->line),
            "kernels");
  EXPECT_EQ(AttentionImplRecord(""), "cpu");  // the CPU model: no line
  EXPECT_EQ(AttentionImplRecord("attention_impl: cudnnx (?)"), "unknown");
  EXPECT_EQ(AttentionImplRecord("something else"), "unknown");
}

// The note a cuDNN model appends: the workspace beside one (B, NH, T, T) fp32 matrix, and the
// record still reads "cudnn" with it.
TEST(AttentionChoice, TheBackwardNoteSaysWhatTheDeterministicWorkspaceHolds) {
  // GPT-2 124M at B=12, T=1024: one (B, NH, T, T) fp32 matrix is 12 * 12 * 1024 * 1024 * 4 bytes.
  const int64_t matrix = int64_t{12} * 12 * 1024 * 1024 * 4;
  EXPECT_EQ(CudnnBackwardNote(matrix, 12, 12, 1024),
            "; backward: cuDNN's deterministic algorithm, workspace 576.0 MiB (1.00x one (B, NH, T, T) fp32 "
            "matrix, 576.0 MiB)");
  EXPECT_EQ(CudnnBackwardNote(matrix / 64, 12, 12, 1024),
            "; backward: cuDNN's deterministic algorithm, workspace 9.0 MiB (0.02x one (B, NH, T, T) fp32 "
            "matrix, 576.0 MiB)");
  FakeCheck pass;
  const std::string line = Decide(AttentionImpl::kAuto, pass)->line + CudnnBackwardNote(matrix, 12, 12, 1024);
  EXPECT_EQ(AttentionImplRecord(line), "cudnn");
}

}  // namespace
}  // namespace cuda
}  // namespace model
