// Back-of-the-envelope estimates (the usual worked examples): training time, decode bound, tokens
// affordable within a FLOP budget. All training work is 6ND (6 FLOPs per parameter per token,
// attention term ignored, as the usual worked examples do).
#ifndef ACCOUNTING_ESTIMATES_H_
#define ACCOUNTING_ESTIMATES_H_

#include "absl/status/statusor.h"

namespace accounting {

constexpr double kSecondsPerDay = 86400;

// 6 * params * tokens: total training FLOPs. params, tokens > 0.
absl::StatusOr<double> TrainingFlops(double params, double tokens);

// 6ND / (devices * peak_per_device * mfu), mfu in (0, 1]; all others > 0.
absl::StatusOr<double> TrainingSeconds(double params, double tokens, int devices,
                                       double peak_per_device, double mfu);
absl::StatusOr<double> TrainingDays(double params, double tokens, int devices,
                                    double peak_per_device, double mfu);

// Upper bound on single-request decode speed: each new token reads every weight once, so
// tokens/s <= bandwidth / (params * bytes_per_param). Ignores the KV cache and activations.
absl::StatusOr<double> DecodeTokensPerSecondBound(double params, double bytes_per_param,
                                                  double bandwidth_bytes_per_s);

// devices * peak_per_device * seconds: FLOPs the hardware could do at 100%.
absl::StatusOr<double> FlopBudget(int devices, double peak_per_device, double seconds);

// Tokens trainable: flop_budget * mfu / (6 * params), mfu in (0, 1].
absl::StatusOr<double> TokensAffordable(double flop_budget, double params, double mfu);

}  // namespace accounting

#endif  // ACCOUNTING_ESTIMATES_H_
