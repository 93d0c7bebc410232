// The main() of a sweep binary (//micro:matmul, //micro:elementwise): its flags, the cases
// registered against the peaks the flags name, the note on CUDA cases left out, then the run.
#ifndef MICRO_COMMON_SWEEP_MAIN_H_
#define MICRO_COMMON_SWEEP_MAIN_H_

#include <memory>

#include "micro/common/bench_common.h"
#include "micro/common/cuda_case.h"

namespace micro {

// Registers a sweep's cases at `sizes`, each dividing by the peaks of `peaks`.
using RegisterSweep = RegisteredCases (*)(SizeSet sizes, std::shared_ptr<PeakProvider> peaks);

// InitMicroBinary; `register_sweep` with a PeakProvider of --ceilings and --cuda_ceilings;
// ReportLeftOutCases; then the selected benchmarks. Returns the exit code.
int RunSweepBinary(BinaryKind kind, int argc, char** argv, RegisterSweep register_sweep);

}  // namespace micro

#endif  // MICRO_COMMON_SWEEP_MAIN_H_
