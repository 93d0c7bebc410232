// For the tests of the micro binaries' sweeps: runs every registered case and checks what each
// sweep owes alike, so that a test states only what is particular to its cases.
#ifndef MICRO_COMMON_CASE_CHECKS_H_
#define MICRO_COMMON_CASE_CHECKS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "micro/common/bench_common.h"
#include "micro/common/collecting_reporter.h"
#include "micro/common/cuda_case.h"

namespace micro {

// A fixed CPU peak for the sweeps' tests: `flops_per_s` and `bytes_per_s`, source "test peak";
// the bf16 cases' peak is 4 x flops_per_s, source "test bf16 peak".
std::shared_ptr<PeakProvider> TestPeaks(double flops_per_s, double bytes_per_s);

// How many cases a sweep has on each side.
struct SweepCases {
  int64_t cpu = 0;
  int64_t cuda = 0;  // registered only with a usable device
};

// Runs every registered benchmark and checks: one run per name in `cases`, in order;
// `expected.cpu` CPU runs; the `expected.cuda` CUDA cases registered only with a usable device,
// else counted as left out with the probe's reason; every run without error, carrying each of
// `counters`, with verified == 1. Then calls `check(run, cuda)` on each run for the sweep's own
// checks (cuda: a "/cuda/" case). Fails the test (fatally, as ASSERT does) on the first run that
// has an error or lacks a counter. Use under ASSERT_NO_FATAL_FAILURE.
void RunCasesAndCheckCounters(const RegisteredCases& cases, SweepCases expected,
                              const std::vector<const char*>& counters,
                              const std::function<void(const CollectedRun& run, bool cuda)>& check);

}  // namespace micro

#endif  // MICRO_COMMON_CASE_CHECKS_H_
