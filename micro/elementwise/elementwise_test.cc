// //micro:elementwise's cases, quick: every CPU case runs and carries its counters, with the
// bytes and FLOPs that accounting/ gives; every CUDA case skips with the probe's reason (no
// device) or carries them too.
#include <memory>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "harness/skip.h"
#include "micro/common/collecting_reporter.h"
#include "micro/elementwise/elementwise_cases.h"

namespace micro {
namespace {

TEST(ElementwiseBenchmarkTest, EveryCaseReportsItsCounters) {
  accounting::Peak peak;
  peak.flops_per_s = 1e11;
  peak.bytes_per_s = 1e10;
  peak.source = "test peak";
  const std::vector<std::string> names =
      RegisterElementwiseBenchmarks(SizeSet::kQuick, std::make_shared<PeakProvider>(peak));

  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, ".*");
  ASSERT_EQ(reporter.runs().size(), names.size());

  const std::string no_cuda = CudaSkipReason();
  int cpu_cases = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const CollectedRun& run = reporter.runs()[i];
    SCOPED_TRACE(run.name);
    EXPECT_TRUE(absl::StartsWith(run.name, names[i]));
    const bool cuda = absl::StrContains(run.name, "/cuda/");
    if (cuda && !no_cuda.empty()) {
      EXPECT_TRUE(run.error);
      EXPECT_EQ(run.error_message, harness::SkipMessage(no_cuda));
      continue;
    }
    ASSERT_FALSE(run.error) << run.error_message;
    for (const char* c : {"FLOP/s", "bytes/s", "intensity", "verified", "elements"}) {
      ASSERT_TRUE(run.counters.count(c)) << c;
    }
    EXPECT_GT(run.counters.at("bytes/s"), 0);
    EXPECT_EQ(run.counters.at("verified"), 1);
    if (cuda) continue;
    ++cpu_cases;
    // Far below the ridge (10 FLOP/byte): memory-bound, so the roofline bound is
    // intensity x bandwidth and the fraction of it is bytes/s over the bandwidth.
    EXPECT_EQ(run.counters.at("memory_bound"), 1);
    EXPECT_NEAR(run.counters.at("pct_of_roofline"), 100 * run.counters.at("bytes/s") / 1e10,
                1e-9 * run.counters.at("pct_of_roofline"));
    EXPECT_NEAR(run.counters.at("pct_of_peak"), 100 * run.counters.at("FLOP/s") / 1e11,
                1e-9 * run.counters.at("pct_of_peak"));
    EXPECT_GE(run.counters.at("rotation_slices"), 1);
    EXPECT_EQ(run.label, "peak: test peak");
  }
  EXPECT_EQ(cpu_cases, static_cast<int>(AllElementwiseOps().size() *
                                        CpuElementwiseSizes(SizeSet::kQuick).size()));
}

TEST(ElementwiseBenchmarkTest, NamesPutTheSizeLast) {
  EXPECT_EQ(ElementwiseCaseName("cpu", ElementwiseOp::kScale, 16777216),
            "BM_Elementwise/cpu/scale/N:16777216");
  EXPECT_EQ(ElementwiseCaseName("cuda", ElementwiseOp::kLayerNorm, 16777216),
            "BM_Elementwise/cuda/layernorm/C:768/N:16777216");
}

TEST(ElementwiseBenchmarkTest, DefaultSizesIncludeTwoToThe24) {
  for (const auto& sizes : {CpuElementwiseSizes(SizeSet::kDefault), CudaElementwiseSizes(SizeSet::kDefault)}) {
    EXPECT_NE(std::find(sizes.begin(), sizes.end(), int64_t{1} << 24), sizes.end());
    EXPECT_GE(sizes.size(), 4u);
  }
}

}  // namespace
}  // namespace micro
