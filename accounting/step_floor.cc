// ComputeStepFloor and AdamWBytesPerSecond (step_floor.h).
#include "accounting/step_floor.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace accounting {

absl::StatusOr<StepFloor> ComputeStepFloor(const StepFloorInput& in) {
  const std::pair<const char*, double> fields[] = {{"gemm_seconds_at_rates", in.gemm_seconds_at_rates},
                                                   {"in_place_bytes_per_s", in.in_place_bytes_per_s},
                                                   {"step_seconds", in.step_seconds}};
  for (const auto& [name, v] : fields) {
    if (!std::isfinite(v) || v < 0) {
      return absl::InvalidArgumentError(absl::StrCat(name, "=", v, ": must be finite and >= 0"));
    }
  }
  if (in.params < 1) return absl::InvalidArgumentError(absl::StrCat("params=", in.params, ": must be >= 1"));
  if (!(in.in_place_bytes_per_s > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("in_place_bytes_per_s=", in.in_place_bytes_per_s, ": must be > 0"));
  }
  if (!(in.step_seconds > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("step_seconds=", in.step_seconds, ": must be > 0"));
  }
  StepFloor f;
  f.gemm_seconds = in.gemm_seconds_at_rates;
  if (!(in.adamw_bytes_per_param > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("adamw_bytes_per_param=", in.adamw_bytes_per_param, ": must be > 0"));
  }
  f.adamw_bytes = static_cast<double>(in.params) * in.adamw_bytes_per_param;
  f.adamw_seconds = f.adamw_bytes / in.in_place_bytes_per_s;
  f.seconds = f.gemm_seconds + f.adamw_seconds;
  f.step_multiple = in.step_seconds / f.seconds;
  return f;
}

absl::StatusOr<double> AdamWBytesPerSecond(int64_t params, double seconds, double bytes_per_param) {
  if (params < 1) return absl::InvalidArgumentError(absl::StrCat("params=", params, ": must be >= 1"));
  if (!(seconds > 0) || !std::isfinite(seconds)) {
    return absl::InvalidArgumentError(absl::StrCat("seconds=", seconds, ": must be finite and > 0"));
  }
  return static_cast<double>(params) * bytes_per_param / seconds;
}

}  // namespace accounting
