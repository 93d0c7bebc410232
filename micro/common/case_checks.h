// For the tests of the micro binaries' sweeps: runs every registered case and checks what each
// sweep owes alike, so that a test states only what is particular to its cases.
#ifndef MICRO_COMMON_CASE_CHECKS_H_
#define MICRO_COMMON_CASE_CHECKS_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "micro/common/collecting_reporter.h"
#include "micro/common/cuda_case.h"

namespace micro {

// Runs every registered benchmark and checks: one run per name in `cases`, in order; the CUDA
// cases (`cuda_cases` of them in the sweep) registered only with a usable device, else counted
// as left out with the probe's reason; every run without error, carrying each of `counters`,
// with verified == 1. Then calls `check(run, cuda)` on each run for the sweep's own checks
// (cuda: a "/cuda/" case). Fails the test (fatally, as ASSERT does) on the first run that has
// an error or lacks a counter. Use under ASSERT_NO_FATAL_FAILURE.
void RunCasesAndCheckCounters(const RegisteredCases& cases, int64_t cuda_cases,
                              const std::vector<const char*>& counters,
                              const std::function<void(const CollectedRun& run, bool cuda)>& check);

}  // namespace micro

#endif  // MICRO_COMMON_CASE_CHECKS_H_
