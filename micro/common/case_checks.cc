#include "micro/common/case_checks.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "micro/common/bench_common.h"

namespace micro {

std::shared_ptr<PeakProvider> TestPeaks(double flops_per_s, double bytes_per_s) {
  accounting::Peak peak;
  peak.flops_per_s = flops_per_s;
  peak.bytes_per_s = bytes_per_s;
  peak.source = "test peak";
  accounting::Peak bf16 = peak;  // 4x: bf16 cases divide by their own peak
  bf16.flops_per_s = 4 * flops_per_s;
  bf16.source = "test bf16 peak";
  return std::make_shared<PeakProvider>(peak, nullptr, bf16);
}

void RunCasesAndCheckCounters(const RegisteredCases& cases, SweepCases expected,
                              const std::vector<const char*>& counters,
                              const std::function<void(const CollectedRun& run, bool cuda)>& check) {
  const std::vector<std::string>& names = cases.names;
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, ".*");
  ASSERT_EQ(reporter.runs().size(), names.size());

  // CUDA cases are registered only with a usable device; else counted, with the probe's reason.
  const std::string no_cuda = CudaSkipReason();
  EXPECT_EQ(cases.cuda_left_out, no_cuda.empty() ? 0 : expected.cuda);
  EXPECT_EQ(cases.left_out_reason, no_cuda);
  int64_t cpu_runs = 0;
  for (size_t i = 0; i < names.size(); ++i) {
    const CollectedRun& run = reporter.runs()[i];
    SCOPED_TRACE(run.name);
    EXPECT_TRUE(absl::StartsWith(run.name, names[i]));
    const bool cuda = absl::StrContains(run.name, "/cuda/");
    cpu_runs += cuda ? 0 : 1;
    EXPECT_FALSE(cuda && !no_cuda.empty()) << "a CUDA case registered without a device";
    ASSERT_FALSE(run.error) << run.error_message;
    for (const char* c : counters) {
      ASSERT_TRUE(run.counters.count(c)) << c;
    }
    EXPECT_EQ(run.counters.at("verified"), 1);
    check(run, cuda);
    if (::testing::Test::HasFatalFailure()) return;  // an ASSERT in `check` stops the run too
  }
  EXPECT_EQ(cpu_runs, expected.cpu) << "CPU cases run";
}

}  // namespace micro
