// The CPU's fp32 FMA ceiling, measured as ERT and mixbench do: a register-resident loop of
// independent FMA chains on every thread, so nothing but the FMA pipes limits it.
//
// Each thread keeps `chains` accumulators in vector registers (12 ymm for AVX2, 24 zmm for
// AVX-512: more than FMA latency x FMA pipes, 4 x 2 on Zen and most Intel cores) and runs
// acc = acc * a + b on all of them per step. a and b come from the caller at run time and the
// sum of the accumulators is returned, so the compiler can neither fold nor drop the loop.
// One FMA = 2 FLOPs (accounting/costs.h convention).
#ifndef MEASURE_FMA_PEAK_H_
#define MEASURE_FMA_PEAK_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace micro {

enum class FmaIsa { kAvx2, kAvx512 };

// "AVX2", "AVX-512".
const char* FmaIsaName(FmaIsa isa);

// Whether this CPU (at run time) can execute the loop for `isa`.
bool FmaIsaSupported(FmaIsa isa);

struct FmaPeakResult {
  FmaIsa isa = FmaIsa::kAvx2;
  int threads = 0;
  double flops = 0;        // FLOPs executed in the timed run, all threads
  double seconds = 0;      // wall time of the timed run
  double flops_per_s = 0;  // flops / seconds
  float checksum = 0;      // sum of the accumulators (keeps the loop alive; finite)
};

// FLOPs per loop step of one thread: chains x lanes x 2.
int64_t FmaFlopsPerStep(FmaIsa isa);

// Runs `steps` loop steps on each of `threads` OpenMP threads (0: omp_get_max_threads()) and
// times the whole parallel region with a steady clock. Errors: isa unsupported, steps < 1,
// threads < 0.
absl::StatusOr<FmaPeakResult> RunFmaLoop(FmaIsa isa, int64_t steps, int threads = 0);

// The step count for runs of about `seconds_per_trial`: grows a probe until it lasts 1 ms or
// more, and scales from the fastest of 3 probes, so a probe that was preempted on a busy
// machine does not shrink the trials into fork/join overhead. Never below the probe's count,
// nor below MinFmaSteps (2^30 FLOPs per thread: thread wake-ups stay negligible).
int64_t MinFmaSteps(FmaIsa isa);
absl::StatusOr<int64_t> CalibrateFmaSteps(FmaIsa isa, double seconds_per_trial, int threads = 0);

// Calibrates the step count so one run lasts about `seconds_per_trial`, then returns the best
// of `trials` runs (the ceiling is the fastest run; slower ones saw interference).
absl::StatusOr<FmaPeakResult> MeasureFmaPeak(FmaIsa isa, double seconds_per_trial, int trials,
                                             int threads = 0);

}  // namespace micro

#endif  // MEASURE_FMA_PEAK_H_
