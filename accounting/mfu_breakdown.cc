// BreakDownMfu (mfu_breakdown.h).
#include "accounting/mfu_breakdown.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "accounting/mfu.h"

namespace accounting {

absl::StatusOr<MfuBreakdown> BreakDownMfu(const MfuBreakdownInput& in) {
  const std::pair<const char*, double> fields[] = {
      {"model_flops_per_step", in.model_flops_per_step},
      {"peak_flops_per_s", in.peak_flops_per_s},
      {"step_seconds", in.step_seconds},
      {"optimizer_and_data_seconds", in.optimizer_and_data_seconds},
      {"gemm_flops_per_step", in.gemm_flops_per_step},
      {"gemm_seconds_at_rates", in.gemm_seconds_at_rates}};
  for (const auto& [name, v] : fields) {
    if (!std::isfinite(v) || v < 0) {
      return absl::InvalidArgumentError(absl::StrCat(name, "=", v, ": must be finite and >= 0"));
    }
  }
  if (in.optimizer_and_data_seconds > in.step_seconds) {
    return absl::InvalidArgumentError(
        absl::StrCat("optimizer_and_data_seconds=", in.optimizer_and_data_seconds,
                     " exceeds step_seconds=", in.step_seconds));
  }
  auto mfu = Mfu(in.model_flops_per_step, in.step_seconds, in.peak_flops_per_s);
  if (!mfu.ok()) return mfu.status();
  const double ideal_gemm = in.gemm_flops_per_step / in.peak_flops_per_s;
  if (in.gemm_seconds_at_rates < ideal_gemm * (1 - 1e-12)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gemm_seconds_at_rates=", in.gemm_seconds_at_rates, " is shorter than the same FLOPs at the peak (",
        ideal_gemm, " s): a measured GEMM rate above the peak; check the peak"));
  }
  if (!std::isfinite(in.gemm_seconds_in_step)) {
    return absl::InvalidArgumentError(
        absl::StrCat("gemm_seconds_in_step=", in.gemm_seconds_in_step, ": must be finite (< 0: not measured)"));
  }
  const bool in_step = in.gemm_seconds_in_step >= 0;
  if (in_step && in.gemm_seconds_in_step > in.step_seconds - in.optimizer_and_data_seconds) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gemm_seconds_in_step=", in.gemm_seconds_in_step, " exceeds the forward and backward time ",
        in.step_seconds - in.optimizer_and_data_seconds, " (step_seconds - optimizer_and_data_seconds)"));
  }
  MfuBreakdown b;
  b.mfu = *mfu;
  b.gemm_efficiency = (in.gemm_seconds_at_rates - ideal_gemm) / in.step_seconds;
  b.in_step_measured = in_step;
  b.gemm_in_step = in_step ? (in.gemm_seconds_in_step - in.gemm_seconds_at_rates) / in.step_seconds : 0.0;
  b.optimizer_and_data = in.optimizer_and_data_seconds / in.step_seconds;
  b.non_matmul = 1.0 - b.mfu - b.gemm_efficiency - b.gemm_in_step - b.optimizer_and_data;
  return b;
}

}  // namespace accounting
