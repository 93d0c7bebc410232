// Is a measurement "disturbed"? The one place that decides, for gpt_step, ddp_step (per rank),
// gpt_decode and the micro cases.
//
// A figure divided by a ceiling (MFU = model FLOP/s / peak, HFU, a decode's bytes/s / the
// bandwidth, a micro case's FLOP/s / the peak) cannot exceed 1 when both were measured right:
// a rate above its ceiling means the ceiling was measured in a slow moment (a shared VM, another
// process on the cores) or the rate was counted wrong. And a ceiling measured twice, before and
// after the timed work, that differs by more than kMaxProbeSpread says the machine's speed moved
// during the run, so no single figure describes it. Either way the run is DISTURBED: its summary
// says so first, its JSON carries the counter `disturbed` = 1 and a label starting with
// "DISTURBED: <reason>", and tools/gate and tools/bench refuse it like an unverified case.
//
// The peak a run divides by is the best of its probes (BestProbe): a slow moment can only make
// a probe slower, never faster, so the fastest probe is the closest to the machine's ceiling.
//
// Both probes can be slow together: on a Zen 4 VM whose FMA loop reads 232 GFLOP/s when quiet,
// other jobs on the cores gave start-up probes of 80-99 GFLOP/s that agreed with each other, and
// the MFU divided by them looked plausible. So a run also compares its probes with this machine's
// record (harness/peak_record.h: the best figures quiet runs of the same machine key measured
// before): a figure more than kMaxBelowRecord below its record disturbs the run too.
#ifndef ACCOUNTING_DISTURBED_H_
#define ACCOUNTING_DISTURBED_H_

#include <optional>
#include <string>
#include <vector>

namespace accounting {

// Two probes of one ceiling differing by more than this (relative to the faster) disturb a run.
inline constexpr double kMaxProbeSpread = 0.10;

// A measured ceiling is itself a measurement: a kernel that runs at the peak can come out a
// little above it. A rate more than this fraction above its ceiling disturbs a run; one within
// it does not. Seen on the development Zen 4: a one-thread oneDNN sgemm 256^3 at 100.13% of the
// one-thread FMA probe in a quiet CI run, and two quiet FMA probes 0.7% apart; the slow-moment
// runs this rule is for were 40% and more above (a probe of 163 GFLOP/s against 492 quiet).
inline constexpr double kCeilingTolerance = 0.03;

// One rate divided by a ceiling: "MFU" = model FLOP/s / peak FLOP/s.
struct CeilingUse {
  std::string what;      // "MFU", "HFU", "bandwidth bound", "FLOP/s of the peak"
  double achieved = 0;   // the rate, per second
  double ceiling = 0;    // the ceiling it is divided by, same unit
  std::string unit = "FLOP/s";
};

// A start-up figure more than this fraction below this machine's record of it disturbs a run.
// Quiet probes of one machine agree within a few percent (two FMA probes 0.2-0.7% apart on the
// development Zen 4, six in a row within 2.2% on a Zen 3 VM); a busy machine's fall far lower
// (to 14-56% of the quiet figure with a 2-process CPU hog on a 2-core Zen 3 VM, 9-59% with 8).
inline constexpr double kMaxBelowRecord = 0.15;

// A figure this run measured at start-up and this machine's record of it (harness/peak_record.h).
struct RecordCheck {
  std::string what = "";  // "FMA peak probe (the best of start-up and after)", "start-up STREAM triad"
  double figure = 0;      // this run's figure, per second
  double record = 0;      // the machine's record, same unit; <= 0: none yet (not judged)
  std::string unit = "FLOP/s";
  std::string keyed = "";  // what else the figure depends on: "2 threads", "2 threads, 128 MiB arrays"
};

// The ceiling probed before the timed work and after it; 0: that probe did not run (a figure
// from --peak_flops, a --ceilings file or a datasheet is not probed, so it has neither).
// `records`: the start-up figures compared with this machine's record, kept in `record_file`
// (empty when there is no record to compare with: a figure that was not probed, or the record is
// off or unreadable).
struct PeakProbes {
  double before = 0;
  double after = 0;
  std::string unit = "FLOP/s";
  std::vector<RecordCheck> records = {};
  std::string record_file = "";
  bool both() const { return before > 0 && after > 0; }
};

// The best (largest) of the probes that ran; 0 when none did.
double BestProbe(const PeakProbes& p);
// (faster - slower) / faster when both ran, else 0.
double ProbeSpread(const PeakProbes& p);
// "probes: before 163.0 GFLOP/s, after 492.0 GFLOP/s, best taken (they differ by 66.9%)";
// "" when fewer than two ran. Rates are printed in G<unit>. With records, "; " and
// DescribeRecords follow.
std::string DescribeProbes(const PeakProbes& p);
// "this machine's record (FILE): FMA peak probe (...) 232.0 GFLOP/s (2 threads), this run 99.1% of
// it; ..."; "" without records.
std::string DescribeRecords(const PeakProbes& p);
// The record checks that fail: a figure more than kMaxBelowRecord below its record. A figure or
// record that is not finite and > 0 is not judged.
bool BelowRecord(const RecordCheck& c);
// The judged check with the lowest figure / record, for a caller that carries one check per rank
// as numbers (ddp_step's ranks gather doubles); nullopt when none is judged.
std::optional<RecordCheck> WorstRecordCheck(const PeakProbes& p);

struct Disturbance {
  bool disturbed = false;
  std::string reason;  // "" when not disturbed; else every cause with its figures, "; "-joined
};

// Disturbed when any use's achieved rate exceeds its ceiling by more than kCeilingTolerance
// (ratio > 1.03), when both probes ran and differ by more than max_spread, or when a start-up
// figure is more than kMaxBelowRecord below this machine's record of it (BelowRecord). A use
// with a ceiling <= 0 or a non-finite rate is not judged (there is no ratio to speak of).
Disturbance JudgeDisturbance(const std::vector<CeilingUse>& uses, const PeakProbes& probes = {},
                             double max_spread = kMaxProbeSpread);

// The benchmark label of a disturbed case: "DISTURBED: <reason> || <label>"; `label` as is when
// not disturbed. DisturbedReasonFromLabel reads the reason back (tools/gate, tools/bench).
inline constexpr char kDisturbedLabelPrefix[] = "DISTURBED: ";
std::string DisturbedLabel(const Disturbance& d, const std::string& label);
std::optional<std::string> DisturbedReasonFromLabel(const std::string& label);

}  // namespace accounting

#endif  // ACCOUNTING_DISTURBED_H_
