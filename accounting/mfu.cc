// MFU, HFU and the running (smoothed) MFU of train loops.
#include "accounting/mfu.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/validate.h"

namespace accounting {
namespace {

absl::StatusOr<double> Utilisation(const char* flops_name, double flops, double seconds, double peak) {
  for (auto st : {RequirePositive(flops_name, flops), RequirePositive("step_seconds", seconds),
                  RequirePositive("peak_flops_per_s", peak)}) {
    if (!st.ok()) return st;
  }
  // A ratio that overflows or underflows (a peak of 1e-300 or 1e308 slipped past the bands of
  // accounting/plausible.h) is no figure: never printed as "inf%" or "0.00%".
  const double u = flops / seconds / peak;
  if (!std::isfinite(u) || !(u > 0)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%g %s / %g s / peak %g FLOP/s = %g is not a utilisation (check the peak)", flops, flops_name,
        seconds, peak, u));
  }
  return u;
}

}  // namespace

absl::StatusOr<double> Mfu(double flops_per_step, double step_seconds, double peak_flops_per_s) {
  return Utilisation("flops_per_step", flops_per_step, step_seconds, peak_flops_per_s);
}

absl::StatusOr<double> Hfu(double hardware_flops_per_step, double step_seconds, double peak_flops_per_s) {
  return Utilisation("hardware_flops_per_step", hardware_flops_per_step, step_seconds, peak_flops_per_s);
}

absl::StatusOr<double> MfuFromThroughput(double params, double tokens_per_s, int devices,
                                         double peak_per_device) {
  for (auto st : {RequirePositive("params", params), RequirePositive("tokens_per_second", tokens_per_s),
                  RequirePositive("peak_per_device", peak_per_device)}) {
    if (!st.ok()) return st;
  }
  if (devices < 1) {
    return absl::InvalidArgumentError(absl::StrCat("devices=", devices, " is invalid: must be >= 1"));
  }
  // 6N FLOPs per trained token (forward 2N + backward 4N), attention term ignored (the 6N convention of
  // Kaplan et al. and PaLM).
  return 6.0 * params * tokens_per_s / (devices * peak_per_device);
}

void RunningMfu::Update(double step_mfu) {
  ++updates_;
  if (updates_ <= kSkip) return;  // nanoGPT: local_iter_num >= 5 before the first estimate
  value_ = value_.has_value() ? 0.9 * *value_ + 0.1 * step_mfu : step_mfu;
}

std::string RunningMfu::ToString() const { return value_.has_value() ? FormatPercent(*value_) : "n/a"; }

std::string FormatPercent(double fraction, int decimals) {
  return absl::StrFormat("%.*f%%", decimals, fraction * 100.0);
}

}  // namespace accounting
