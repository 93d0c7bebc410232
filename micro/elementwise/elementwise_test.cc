// //micro:elementwise's cases, quick: every CPU case runs and carries its counters, with the
// bytes and FLOPs that accounting/ gives; CUDA cases are registered (and carry them too) only
// with a usable device, else counted as left out with the probe's reason.
#include <memory>

#include "gtest/gtest.h"
#include "micro/common/case_checks.h"
#include "micro/elementwise/elementwise_cases.h"

namespace micro {
namespace {

TEST(ElementwiseBenchmarkTest, EveryCaseReportsItsCounters) {
  const RegisteredCases cases = RegisterElementwiseBenchmarks(SizeSet::kQuick, TestPeaks(1e11, 1e10));
  const int64_t ops = static_cast<int64_t>(AllElementwiseOps().size());
  const SweepCases expected{ops * static_cast<int64_t>(CpuElementwiseSizes(SizeSet::kQuick).size()),
                            ops * static_cast<int64_t>(CudaElementwiseSizes(SizeSet::kQuick).size())};
  ASSERT_NO_FATAL_FAILURE(RunCasesAndCheckCounters(
      cases, expected, {"FLOP/s", "bytes/s", "intensity", "verified", "elements"},
      [](const CollectedRun& run, bool cuda) {
        EXPECT_GT(run.counters.at("bytes/s"), 0);
        if (cuda) return;
        // Far below the ridge (10 FLOP/byte): memory-bound, so the roofline bound is
        // intensity x bandwidth and the fraction of it is bytes/s over the bandwidth.
        EXPECT_EQ(run.counters.at("memory_bound"), 1);
        EXPECT_NEAR(run.counters.at("pct_of_roofline"), 100 * run.counters.at("bytes/s") / 1e10,
                    1e-9 * run.counters.at("pct_of_roofline"));
        EXPECT_NEAR(run.counters.at("pct_of_peak"), 100 * run.counters.at("FLOP/s") / 1e11,
                    1e-9 * run.counters.at("pct_of_peak"));
        EXPECT_GE(run.counters.at("rotation_slices"), 1);
        EXPECT_EQ(run.label, "peak: test peak");
      }));
}

TEST(ElementwiseBenchmarkTest, NamesPutTheSizeLast) {
  EXPECT_EQ(ElementwiseCaseName("cpu", ElementwiseOp::kScale, 16777216),
            "BM_Elementwise/cpu/scale/N:16777216");
  EXPECT_EQ(ElementwiseCaseName("cuda", ElementwiseOp::kLayerNorm, 16777216),
            "BM_Elementwise/cuda/layernorm/C:768/N:16777216");
}

TEST(ElementwiseBenchmarkTest, DefaultSizesIncludeTwoToThe24) {
  for (const auto& sizes :
       {CpuElementwiseSizes(SizeSet::kDefault), CudaElementwiseSizes(SizeSet::kDefault)}) {
    EXPECT_NE(std::find(sizes.begin(), sizes.end(), int64_t{1} << 24), sizes.end());
    EXPECT_GE(sizes.size(), 4u);
  }
}

}  // namespace
}  // namespace micro
