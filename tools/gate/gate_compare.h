// Per-case comparison of a current run against a baseline: the statuses tools/gate reports.
//
// Metric. real_time (default) or cpu_time, lower is better, compared in seconds whatever the
// time_unit; or a counter by name, higher is better (tokens_per_second, ...), or lower with a
// ":lower" suffix ("ms_per_step:lower"). A case that lacks the counter is listed as not
// compared, never gated.
//
// Verification convention (what micro/ and macro/ follow). A case passes its output check when
// every repetition has "verified" == 1: the benchmark sets state.counters["verified"] to 1
// after comparing its output with a reference, 0 when the check failed (a multi-threaded case
// uses Counter(ok, Counter::kAvgThreads), so one failing thread gives < 1). A repetition with
// "error_occurred": true (SkipWithError, e.g. a CUDA case without a GPU) is unverified too,
// with its error_message. With require_verified (the default) a case without the counter is
// unverified ("no 'verified' counter"); with require_verified=false only an explicit 0 or an
// error is. A repetition with the counter "disturbed" != 0 is UNVERIFIED too, "DISTURBED: <reason>"
// (the reason from its label, accounting/disturbed.h: a rate above the ceiling it is divided by,
// MFU > 100%, or the peak probed before and after the timed work differing by more than 10%).
// UNVERIFIED cases are shown and never gated on, and never stored in a baseline.
//
// Statuses, per case:
//   SKIPPED     not applicable on this machine: every repetition errored with a skip message
//               (harness/skip.h: "skipped: no CUDA device: ..."). Not a failure, not a number.
//   UNVERIFIED  the current run did not pass its output check (above). tools/gate fails on it:
//               a broken measurement is never green.
//   NEW         no (verified) baseline for the case.
//   MISSING     in the baseline, not in the current run.
//   REGRESSED   worse by at least the case's minimum effect AND the
//               one-sided Mann-Whitney U test "current is worse" gives p < alpha, after Holm's
//               adjustment over the compared cases (`holm`, on by default).
//   IMPROVED    the same, in the better direction.
//   SAME        anything else.
// Minimum effect, per case: max(threshold, noise_floor x IQR / median of the baseline's
// repetitions). A case whose repetitions already spread by 15% (bimodal memory-bound kernels on
// a shared machine: their median hops between modes from run to run) must move by more than
// that spread; a steady compute case keeps `threshold`. Measured on the shared development
// machine: against a baseline recorded in a quiet moment, compute-bound quick cases moved by
// at most 2.5% over 10 runs of unchanged code, cache-resident elementwise cases by up to 20%
// (their baseline IQR: 14% and more).
// Why Holm: CI fails when ANY case regresses, so the false-alarm rate that matters is the
// family-wise one; with 7 cases each tested at 0.05 it would be up to 1 - 0.95^7 = 30% per run
// for independent noise. Holm keeps it at alpha and costs little power where it matters: a
// 25% slowdown over 9 vs 9 repetitions gives p ~ 1/48620.
// Mann-Whitney U is computed over the repetitions of each side (stats.h: exact without ties
// for up to 50 per side, else the normal approximation with tie correction). With fewer than
// 9 repetitions on a side the case gets a warning: with 3 vs 3 the smallest one-sided p is
// 0.05, so nothing can be significant; 9 vs 9 allows p down to 1/48620.
//
// Calibration (noisy shared machines). `calibration` names a case (a prefix of its name,
// default "BM_Calibration/cpu/fma", run by tools/bench in every round). When it is present and
// verified in both runs the gate computes
//     s = median calibration real_time (current) / median calibration real_time (baseline)
// and reports it: how much slower the machine ran a fixed workload now. With `normalize`,
// each current value is also rescaled by it (lower-is-better: current / s; higher-is-better:
// current * s) before medians, changes and the test, so a whole-machine slowdown would cancel.
// Normalising is OFF by default, chosen by measurement (tools/gate/false_alarm_experiment.sh on the
// 2-core shared development machine, 10 quick runs): the calibration case is itself noisy
// (its spread across rounds reached 90%), a noisy baseline factor shifts every case the same
// way, and every calibrated run raised false alarms where raw comparison raised them in few.
// Cases whose name starts with "BM_Calibration/" are never gated themselves.
#ifndef TOOLS_GATE_GATE_COMPARE_H_
#define TOOLS_GATE_GATE_COMPARE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tools/gate/gate_run.h"

namespace gate {

enum class CaseStatus { kRegressed, kImproved, kSame, kNew, kMissing, kUnverified, kSkipped };
const char* StatusName(CaseStatus s);  // "REGRESSED", ...

struct Metric {
  std::string name = "real_time";
  bool higher_is_better = false;
  bool is_time() const { return name == "real_time" || name == "cpu_time"; }
};

// "real_time", "cpu_time", "NAME" (a counter, higher is better), "NAME:higher", "NAME:lower".
absl::StatusOr<Metric> ParseMetric(const std::string& text);

inline constexpr char kCalibrationPrefix[] = "BM_Calibration/";
inline constexpr int kMinRepetitions = 9;

struct CompareOptions {
  Metric metric;
  double threshold = 0.05;   // minimum relative change of the medians
  double noise_floor = 1.0;  // ... raised per case to noise_floor x baseline IQR / median
  double alpha = 0.05;       // one-sided significance level of each direction
  std::string calibration;   // case-name prefix; empty: no calibration factor
  bool normalize = false;    // divide current values by the calibration factor
  bool require_verified = true;
  bool holm = true;  // Holm-adjust p-values over the compared cases
  // A/B rounds run side by side (tools/bench --against): pair the repetitions by
  // repetition_index and use the Wilcoxon signed-rank test on the log ratios; the minimum
  // effect is `threshold` (no baseline IQR: the pairing already removes the drift).
  bool paired = false;
  // The test of an A/B run. The design is paired (rounds alternate, and the change is the
  // median per-round ratio - 1, so a drift of the machine between rounds cancels in the effect
  // size); the p-value comes from kRankSum (default), Mann-Whitney U over the two sides'
  // rounds, or kSignedRank, the Wilcoxon signed-rank test on the per-round log ratios. Chosen
  // by measurement (tools/gate/baselines/README.md, same runs gated both ways): on the quiet 2-core
  // machine a 25% slowdown was flagged in 9 of 10 A/B runs by rank-sum and 7 of 10 by
  // signed-rank, because a burst of foreign load slows one side of one round by 20-120% and
  // the signed-rank test weighs that round by its size; while other sessions compiled (the
  // whole round's speed drifting), signed-rank did better (8 vs 6 of 10).
  enum class PairedTest { kRankSum, kSignedRank };
  PairedTest paired_test = PairedTest::kRankSum;
};

// Validates ranges: threshold in [0, 1), alpha in (0, 0.5].
absl::Status ValidateOptions(const CompareOptions& o);

struct CaseResult {
  std::string name;
  CaseStatus status = CaseStatus::kSame;
  int n_baseline = 0, n_current = 0;
  double baseline_median = 0;  // in seconds for a time metric, else the counter's unit
  double current_median = 0;   // after calibration, when used
  double change = 0;           // current / baseline - 1 (signed, of the metric's value)
  double p_value = 1;          // one-sided, in the direction of `change`, Holm-adjusted if on
  double p_raw = 1;            // the same before adjustment
  double min_effect = 0;       // the relative change this case needed (threshold or noise)
  bool exact = false;          // p from the exact distribution
  std::string note;            // why UNVERIFIED, warnings
};

struct Comparison {
  std::vector<CaseResult> cases;          // in current-run order, then MISSING ones
  int compared = 0;                       // cases with a test (the Holm family size)
  std::vector<std::string> not_compared;  // cases without the metric
  std::vector<std::string> warnings;
  bool calibrated = false;  // a factor was computed
  bool normalized = false;  // ... and applied to the current values
  std::string calibration_case;
  double calibration_factor = 1;  // s above
  int Count(CaseStatus s) const;
};

// The skip reason when every repetition is a skip (harness/skip.h), else nullopt.
std::optional<std::string> SkipReason(const std::vector<nlohmann::json>& entries);

// "DISTURBED: <reason>" when the entry has disturbed != 0; else nullopt.
std::optional<std::string> DisturbedReason(const nlohmann::json& entry);

// nullopt when every repetition passed its check and none is disturbed; else the reason.
std::optional<std::string> UnverifiedReason(const std::vector<nlohmann::json>& entries,
                                            bool require_verified);

// The metric per repetition (seconds for times). NotFound when an entry lacks it.
absl::StatusOr<std::vector<double>> MetricSamples(const std::vector<nlohmann::json>& entries,
                                                  const Metric& metric);

// `baseline` may be empty (no baseline file: every case NEW).
absl::StatusOr<Comparison> Compare(const Run& baseline, const Run& current, const CompareOptions& options);

}  // namespace gate

#endif  // TOOLS_GATE_GATE_COMPARE_H_
