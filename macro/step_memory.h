// The host memory a gpt_step run on the CPU takes at its peak, planned before anything is
// allocated, so that a shape that cannot fit is refused with the figures instead of aborting
// halfway (under `ulimit -v 8000000`, gpt2 at B=3, T=1024 passed a check of the model's buffers
// alone, 6.50 GB of 6.94, and died 35 s later allocating the classifier GEMM's 618 MB).
//
// Three parts, each an upper bound measured against the process's peak address space (VmPeak):
//   the model's buffers (model/gpt_memory.h, exact: the CPU model allocates them so);
//   the start-up measurements, one at a time and freed before the steps: the GEMM rates at the
//     step's shapes (model/step_gemms.h: each shape's operands) and STREAM's three arrays, the
//     larger of the two where the run measures them (not where --ceilings gives the figures);
//   the runtime: the GEMM libraries' workspaces and the threads' stacks and malloc arenas. Two
//     figures: what the run touches (kRuntimeResidentBytes, against MemAvailable) and what it maps
//     (kRuntimeAddressBytes plus kAddressPerThreadBytes for each thread past the first, against
//     the address-space limit's room: a thread's glibc malloc arena reserves 64 MiB untouched).
// macro/gpt_step_memory_test.sh runs gpt_step under `ulimit -v` at three shapes: at the planned
// figure the run completes, 10% under it the run is refused before the model is built.
#ifndef MACRO_STEP_MEMORY_H_
#define MACRO_STEP_MEMORY_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "macro/step_options.h"
#include "model/gpt_memory.h"

namespace macro {

// The runtime part (see above), from gpt_step runs on a 2-core Zen 3 VM (gpt2 and test-mini, B*T
// from 256 to 3072, --cpu_gemm auto and onednn): VmPeak less the address space mapped at the check,
// the model and the start-up part was 27 MiB with 1 thread and 183 to 283 MiB with 2 (each thread
// past the first about 200 MiB: its malloc arena, stack and OpenBLAS buffer); VmHWM less the model
// and the start-up part, 315 MiB.
inline constexpr int64_t kRuntimeResidentBytes = int64_t{384} << 20;
inline constexpr int64_t kRuntimeAddressBytes = int64_t{128} << 20;
inline constexpr int64_t kAddressPerThreadBytes = int64_t{256} << 20;

struct StepMemoryPlan {
  model::MemoryEstimate model;  // the model's buffers
  int64_t startup_bytes = 0;    // the largest start-up measurement's buffers (0: none measured)
  std::string startup_what;     // which: "the GEMM rate of lm_head.fwd (...)", "STREAM's 3 arrays of N MiB"
  int64_t runtime_bytes = 0;          // threads and libraries: touched
  int64_t runtime_address_bytes = 0;  // and mapped
  int threads = 0;
  int64_t total_bytes() const { return model.total_bytes() + startup_bytes + runtime_bytes; }
  int64_t total_address_bytes() const { return model.total_bytes() + startup_bytes + runtime_address_bytes; }
  // "model 6.50 GB (params ..., activations ...), start-up 782.3 MB (the GEMM rate of lm_head.fwd,
  // ...), runtime 402.7 MB touched, 402.7 MB mapped (2 threads): total 7.68 GB touched, 7.68 GB mapped".
  std::string Describe() const;
};

// The plan of a CPU run of `o` on `threads` threads (<= 0: the OpenMP default). Errors as
// model::EstimateTrainingMemory; an unreadable --ceilings file. gemm_rates_kept: the run takes
// its GEMM rates from an earlier session (--recompute=all's later levels) and measures none.
absl::StatusOr<StepMemoryPlan> PlanStepMemory(const StepOptions& o, int threads, bool gemm_rates_kept = false);

// The plan against what this process may still allocate (model/host_memory.h):
// ResourceExhausted naming the shape, the plan and what is available, else OK.
absl::Status CheckStepMemory(const StepMemoryPlan& plan, const StepOptions& o);

}  // namespace macro

#endif  // MACRO_STEP_MEMORY_H_
