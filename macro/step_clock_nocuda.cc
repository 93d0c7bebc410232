// CUDA clocks in a build without the CUDA toolkit: there are none.
#include "macro/step_clock.h"

namespace macro {

std::unique_ptr<StepClock> MakeCudaStepClock() { return nullptr; }
std::unique_ptr<TraceTimer> MakeCudaTraceTimer() { return nullptr; }

}  // namespace macro
