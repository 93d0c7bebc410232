// Model FLOPs utilisation (MFU) and hardware FLOPs utilisation (HFU).
//
//   MFU = model FLOPs per step / (step seconds * peak FLOP/s)
//   HFU = the same with the FLOPs the hardware executed (e.g. + one forward pass for recompute)
//   MfuFromThroughput = 6 * N * tokens/s / (devices * peak per device)   (PaLM, Appendix B; 6N only)
//
// DDP: per rank, divide one rank's local work by ONE device's peak. Global work over one
// device's peak inflates the figure by the world size; local work over all devices' peak
// deflates it by the same factor (as nanoGPT counts DDP).
// A computed MFU above 1 is returned as is (the rating says "check your formula").
#ifndef ACCOUNTING_MFU_H_
#define ACCOUNTING_MFU_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace accounting {

// All arguments must be finite and > 0, and the result finite and > 0 (no inf or 0 from an
// absurd peak); the error names the argument and value.
absl::StatusOr<double> Mfu(double flops_per_step, double step_seconds, double peak_flops_per_s);
// HFU: the same division with hardware FLOPs; named separately so call sites say which.
absl::StatusOr<double> Hfu(double hardware_flops_per_step, double step_seconds, double peak_flops_per_s);
// 6 * params * tokens_per_s / (devices * peak_per_device). devices >= 1.
absl::StatusOr<double> MfuFromThroughput(double params, double tokens_per_s, int devices,
                                         double peak_per_device);

// As train loops print it (nanoGPT): the first 5 updates are skipped (warm-up, compile), the
// 6th sets the value, later ones smooth value = 0.9 * value + 0.1 * step_mfu.
// Not yet measured: value() is nullopt and ToString() is "n/a" (never -100%).
class RunningMfu {
 public:
  static constexpr int kSkip = 5;
  void Update(double step_mfu);
  std::optional<double> value() const { return value_; }
  int updates() const { return updates_; }
  std::string ToString() const;  // "n/a" or "41.23%"

 private:
  int updates_ = 0;
  std::optional<double> value_;
};

// "41.23%" for 0.4123.
std::string FormatPercent(double fraction, int decimals = 2);

}  // namespace accounting

#endif  // ACCOUNTING_MFU_H_
