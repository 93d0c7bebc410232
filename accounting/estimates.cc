// Training time, decode bound and FLOP-budget estimates (6ND).
#include "accounting/estimates.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "accounting/validate.h"

namespace accounting {
namespace {

absl::Status Devices(int devices) {
  if (devices >= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("devices=", devices, " is invalid: must be >= 1"));
}

absl::Status MfuRange(double mfu) {
  if (mfu > 0 && mfu <= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("mfu=", mfu, " is out of range: must be in (0, 1] (a fraction: 0.45 for 45%)"));
}

}  // namespace

absl::StatusOr<double> TrainingFlops(double params, double tokens) {
  for (auto st : {RequirePositive("params", params), RequirePositive("tokens", tokens)}) {
    if (!st.ok()) return st;
  }
  return 6.0 * params * tokens;
}

absl::StatusOr<double> TrainingSeconds(double params, double tokens, int devices,
                                       double peak_per_device, double mfu) {
  for (auto st : {RequirePositive("params", params), RequirePositive("tokens", tokens), Devices(devices),
                  RequirePositive("peak_per_device", peak_per_device), MfuRange(mfu)}) {
    if (!st.ok()) return st;
  }
  return 6.0 * params * tokens / (devices * peak_per_device * mfu);
}

absl::StatusOr<double> TrainingDays(double params, double tokens, int devices,
                                    double peak_per_device, double mfu) {
  absl::StatusOr<double> s = TrainingSeconds(params, tokens, devices, peak_per_device, mfu);
  if (!s.ok()) return s.status();
  return *s / kSecondsPerDay;
}

absl::StatusOr<double> DecodeTokensPerSecondBound(double params, double bytes_per_param,
                                                  double bandwidth_bytes_per_s) {
  for (auto st : {RequirePositive("params", params), RequirePositive("bytes_per_param", bytes_per_param),
                  RequirePositive("bandwidth", bandwidth_bytes_per_s)}) {
    if (!st.ok()) return st;
  }
  return bandwidth_bytes_per_s / (params * bytes_per_param);
}

absl::StatusOr<double> FlopBudget(int devices, double peak_per_device, double seconds) {
  for (auto st : {Devices(devices), RequirePositive("peak_per_device", peak_per_device),
                  RequirePositive("seconds", seconds)}) {
    if (!st.ok()) return st;
  }
  return devices * peak_per_device * seconds;
}

absl::StatusOr<double> TokensAffordable(double flop_budget, double params, double mfu) {
  for (auto st : {RequirePositive("flop_budget", flop_budget), RequirePositive("params", params), MfuRange(mfu)}) {
    if (!st.ok()) return st;
  }
  return flop_budget * mfu / (6.0 * params);
}

}  // namespace accounting
