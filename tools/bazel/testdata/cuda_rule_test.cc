// Tests that a cuda_library links into a plain cc_test and, on a GPU, runs its kernel.
// Without a device the GPU checks skip with the probe's reason.
#include <vector>

#include "gtest/gtest.h"
#include "sysinfo/cuda_info.h"
#include "tools/bazel/testdata/add_one.h"

namespace {

TEST(CudaRuleTest, LinksAndProbes) {
  sysinfo::CudaInventory inv = sysinfo::ProbeCuda();
  EXPECT_TRUE(inv.compiled_with_cuda);
  if (!inv.available) {
    EXPECT_FALSE(inv.reason.empty());
  }
}

TEST(CudaRuleTest, KernelRunsOnDevice) {
  sysinfo::CudaInventory inv = sysinfo::ProbeCuda();
  if (!inv.available) GTEST_SKIP() << "no CUDA device: " << inv.reason;
  std::vector<float> x = {1.0f, 2.5f, -3.0f};
  ASSERT_EQ(cuda_rule_test::AddOneOnDevice(&x), "");
  EXPECT_EQ(x, (std::vector<float>{2.0f, 3.5f, -2.0f}));
}

TEST(CudaRuleTest, BuiltForThisDevice) {
  sysinfo::CudaInventory inv = sysinfo::ProbeCuda();
  if (!inv.available) GTEST_SKIP() << "no CUDA device: " << inv.reason;
  std::string error;
  int version = cuda_rule_test::KernelBinaryVersion(&error);
  ASSERT_GT(version, 0) << error;
  // SASS for sm_90 by default; PTX JIT on other devices still reports their version.
  EXPECT_EQ(version, inv.devices[0].cc_major * 10 + inv.devices[0].cc_minor);
}

}  // namespace
