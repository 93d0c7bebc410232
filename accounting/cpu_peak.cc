// Declared CPU peak: cores x FMA lanes x FMA units x 2 x clock.
#include "accounting/cpu_peak.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace accounting {

absl::StatusOr<Peak> CpuDeclaredPeak(const CpuPeakDeclaration& d) {
  if (d.cores < 1) {
    return absl::InvalidArgumentError(absl::StrCat("cores=", d.cores, " is invalid: must be >= 1"));
  }
  if (d.fma_lanes < 1) {
    return absl::InvalidArgumentError(absl::StrCat("fma_lanes=", d.fma_lanes, " is invalid: must be >= 1"));
  }
  if (d.fma_units_per_core < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("fma_units_per_core=", d.fma_units_per_core, " is invalid: must be >= 1"));
  }
  if (!(d.clock_hz > 0) || !std::isfinite(d.clock_hz)) {
    return absl::InvalidArgumentError(absl::StrCat("clock_hz=", d.clock_hz, " is invalid: must be > 0"));
  }
  Peak p;
  // One FMA = one multiply-add = 2 FLOPs per lane.
  p.flops_per_s = static_cast<double>(d.cores) * d.fma_lanes * d.fma_units_per_core * 2.0 * d.clock_hz;
  p.source = absl::StrFormat("declared: %d cores x %d lanes x %d FMA units x 2 FLOP/FMA x %.2f GHz", d.cores,
                             d.fma_lanes, d.fma_units_per_core, d.clock_hz / 1e9);
  return p;
}

absl::StatusOr<Peak> CpuDeclaredPeakFromInfo(const sysinfo::CpuInfo& info, Dtype dtype,
                                             int fma_units_per_core) {
  if (dtype != Dtype::kFp32) {
    return absl::InvalidArgumentError(
        absl::StrCat("a declared CPU peak is fp32 only, not ", DtypeName(dtype),
                     ": measure that dtype with `bazel run //micro:ceilings` and pass --ceilings=FILE"));
  }
  if (!info.fma) {
    return absl::FailedPreconditionError(absl::StrCat("CPU '", info.model,
                                                      "' reports no FMA: no declared peak; measure one with "
                                                      "`bazel run //micro:ceilings`"));
  }
  CpuPeakDeclaration d;
  d.cores = info.physical_cores > 0 ? info.physical_cores : info.logical_cpus;
  d.fma_lanes = info.Fp32Lanes();
  d.fma_units_per_core = fma_units_per_core;
  d.clock_hz = info.mhz * 1e6;
  absl::StatusOr<Peak> p = CpuDeclaredPeak(d);
  if (!p.ok()) {
    return absl::FailedPreconditionError(absl::StrCat("CPU '", info.model, "': ", p.status().message()));
  }
  p->source += absl::StrCat(" (", info.model, "; clock as /proc/cpuinfo reported it)");
  return p;
}

}  // namespace accounting
