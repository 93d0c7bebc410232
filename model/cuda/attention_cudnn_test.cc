// cuDNN attention in the GPU build, runnable without a GPU: the library opens and reports its
// version (no device needed), and Create turns every failure into a status naming the shape.
// With a device the graphs must build (the second test, skipped without one).
#include "model/cuda/attention_cudnn.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/cuda/test_backend.h"

namespace model {
namespace cuda {
namespace {

using ::testing::HasSubstr;

TEST(CudnnAttention, TheLibraryOpensAndReportsCudnn9) {
  const CudnnStatus s = ProbeCudnn();
  ASSERT_TRUE(s.loaded) << s.reason;
  EXPECT_EQ(s.version / 10000, 9) << s.version;
  EXPECT_GE(s.version, kMinCudnnVersion);
  EXPECT_EQ(ProbeCudnn().version, s.version);  // probed once
}

TEST(CudnnAttention, CreateSaysWhyNotNamingTheShapeOrBuilds) {
  const AttentionShape s{2, 64, 4, 64};
  absl::StatusOr<std::unique_ptr<CudnnAttention>> a = CudnnAttention::Create(s);
  if (test::UnavailableReason().empty()) {
    ASSERT_TRUE(a.ok()) << a.status();
    return;
  }
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(a.status().message()), HasSubstr("cuDNN attention at B=2 T=64 NH=4 HS=64"));
}

// On a device (skipped without one, which tools/gpu/gpu_check.sh counts as a failure there):
// GPT-2 124M's shape builds, and a second Create for it comes from the cache.
TEST(CudnnAttention, Gpt2GraphsBuildOnTheDeviceAndAreCached) {
  SKIP_WITHOUT_DEVICE();
  const AttentionShape s{12, 1024, 12, 64};
  absl::StatusOr<std::unique_ptr<CudnnAttention>> a = CudnnAttention::Create(s);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ((*a)->shape().ToString(), s.ToString());
  EXPECT_GE((*a)->workspace_bytes(), 0);
  absl::StatusOr<std::unique_ptr<CudnnAttention>> again = CudnnAttention::Create(s);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->workspace_bytes(), (*a)->workspace_bytes());
}

TEST(CudnnAttention, UnsupportedOrInvalidShapesAreErrorsNotCrashes) {
  // A head size cuDNN's fused attention does not take (not a multiple of 8).
  absl::StatusOr<std::unique_ptr<CudnnAttention>> odd = CudnnAttention::Create({1, 16, 2, 3});
  ASSERT_FALSE(odd.ok());
  EXPECT_THAT(std::string(odd.status().message()), HasSubstr("B=1 T=16 NH=2 HS=3"));
  absl::StatusOr<std::unique_ptr<CudnnAttention>> empty = CudnnAttention::Create({0, 16, 2, 8});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cuda
}  // namespace model
