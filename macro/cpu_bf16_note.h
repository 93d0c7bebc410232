// The one start-up line a CPU run prints about bf16: which bf16 units the CPU has, and what that
// means for this run.
//   fp32 run on a CPU with AMX or AVX512-BF16: the bf16 peak measured now (a ~0.1 s loop) next to
//     the run's fp32 peak, and that --dtype=bf16 uses it; none: nothing is printed.
//   (gpt_decode prints the fp32 form only; its bf16 line is its own.)
//   bf16 run: the units, and the implementation oneDNN runs the bf16 GEMMs with; a WARNING when
//     it emulates bf16 without bf16 units (e.g. ONEDNN_MAX_CPU_ISA capped below them).
#ifndef MACRO_CPU_BF16_NOTE_H_
#define MACRO_CPU_BF16_NOTE_H_

#include <string>

#include "accounting/dtype.h"

namespace macro {

// `tool`: the binary's name for the prefix; fp32_peak_flops: the run's own peak (fp32 runs).
// Empty when there is nothing to say (an fp32 run on a CPU without bf16 units).
std::string CpuBf16Note(const std::string& tool, accounting::Dtype dtype, double fp32_peak_flops);

}  // namespace macro

#endif  // MACRO_CPU_BF16_NOTE_H_
