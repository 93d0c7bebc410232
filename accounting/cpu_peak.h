// A declared CPU peak: cores x FMA lanes x FMA units per core x 2 FLOPs per FMA x clock.
// CPUs have no datasheet table here; the alternative is a measured-ceilings file (ceilings.h,
// written by //micro:ceilings). A declared peak says so in its source, with every factor.
#ifndef ACCOUNTING_CPU_PEAK_H_
#define ACCOUNTING_CPU_PEAK_H_

#include "absl/status/statusor.h"
#include "accounting/dtype.h"
#include "accounting/peaks.h"
#include "sysinfo/cpu_info.h"

namespace accounting {

struct CpuPeakDeclaration {
  int cores = 0;               // physical cores that run the work
  int fma_lanes = 0;           // elements per FMA instruction (fp32: 8 for AVX2, 16 for AVX-512)
  int fma_units_per_core = 0;  // FMA pipes per core (2 on Zen 3 and most Intel server cores)
  double clock_hz = 0;         // sustained clock
};

// cores * fma_lanes * fma_units_per_core * 2 * clock_hz; all factors must be > 0.
// Source: "declared: 2 cores x 8 lanes x 2 FMA units x 2 FLOP/FMA x 3.00 GHz".
absl::StatusOr<Peak> CpuDeclaredPeak(const CpuPeakDeclaration& d);

// From the running machine's description: fp32 only (fp32 lanes from the ISA flags; tf32 and
// fp16/bf16/fp8 are errors: the CPU model has no such declared rate). Needs physical cores and a
// clock; fma_units_per_core is an assumption the caller states (default 2).
absl::StatusOr<Peak> CpuDeclaredPeakFromInfo(const sysinfo::CpuInfo& info, Dtype dtype,
                                             int fma_units_per_core = 2);

}  // namespace accounting

#endif  // ACCOUNTING_CPU_PEAK_H_
