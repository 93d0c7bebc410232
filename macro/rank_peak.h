// The peak a run divides by is the peak of the device it actually uses (per-rank MFU = local
// work / one device's peak, macro/ddp_accounting.h). ChooseSourcePeak picks a figure and says
// what it covers; PeakForRank, a pure function, turns it into the run's device's peak and says
// which case applied:
//
//   GPU (one device per rank): every source (datasheet, --ceilings, --peak_flops) describes one
//       device; used as is.
//   CPU, where a rank's device is the cores its threads run on:
//     - measured with the run's own threads (the start-up FMA loop runs after the thread count is
//       set; ddp_step's ranks measure at the same moment, as they train): used as is;
//     - measured with another thread count (a --ceilings file whose method names its threads):
//       x min(threads, cores) / min(measured threads, cores);
//     - a whole-machine figure (the declared cores x lanes x units x clock, --peak_flops, or a
//       --ceilings file that does not say its threads): x min(threads, cores) / cores.
// Scaling an already per-rank figure by threads / cores a second time is the bug this file
// prevents (per-rank MFU world-size times too high). Only FLOP/s are scaled, not bytes/s.
#ifndef MACRO_RANK_PEAK_H_
#define MACRO_RANK_PEAK_H_

#include <string>

#include "absl/status/statusor.h"
#include "accounting/disturbed.h"
#include "accounting/peaks.h"
#include "macro/step_options.h"

namespace macro {

enum class PeakOrigin {
  kMeasuredAtStartup,  // CPU: the FMA loop run now
  kCeilingsFile,       // --ceilings: a measured-ceilings file
  kDatasheet,          // a GPU's datasheet, or the CPU's declared cores x lanes x units x clock
  kFlag,               // --peak_flops
  kNone,               // no figure: a GPU whose name no datasheet entry knows (flops_per_s 0)
};
// "measured at start-up", "--ceilings file", "datasheet", "--peak_flops", "no peak".
const char* PeakOriginName(PeakOrigin origin);

// A chosen figure and what it covers.
struct SourcePeak {
  accounting::Peak peak;
  PeakOrigin origin = PeakOrigin::kFlag;
  // CPU: the threads the FMA figure was measured with; 0: not a measurement with a known thread
  // count (a whole-machine figure).
  int measured_threads = 0;
};

// What a run (one ddp_step rank, or gpt_step's process) computes on.
struct RunDevice {
  std::string device;  // "cpu" or "cuda"
  int threads = 0;     // CPU: threads the run uses (>= 1)
  int cores = 0;       // CPU: the machine's physical cores (>= 1)
};

enum class PeakRule {
  kAsIs,                   // the figure is the run's device's peak
  kScaledFromMeasured,     // measured with another thread count: scaled by threads
  kScaledFromWholeMachine  // the whole CPU's figure: scaled to the run's share of the cores
};

struct RankPeak {
  accounting::Peak peak;  // flops_per_s scaled; source = the figure's source + "; " + rule
  PeakOrigin origin = PeakOrigin::kFlag;  // where the figure came from (chosen.origin)
  PeakRule rule = PeakRule::kAsIs;
  double scale = 1;       // peak.flops_per_s / chosen figure
  std::string rule_text;  // "used as is: measured with this run's 1 thread", "x 1/2 cores: ..."
  // The dtype the figure is for: a CPU bf16 run's probes measure the bf16 loops (bf16_peak.h).
  accounting::Dtype dtype = accounting::Dtype::kFp32;
};

// Errors: device not cpu or cuda; on the CPU threads or cores < 1, measured_threads < 0; a
// figure that is not finite and > 0, except PeakOrigin::kNone's 0 (returned as 0, "n/a").
absl::StatusOr<RankPeak> PeakForRank(const SourcePeak& chosen, const RunDevice& run);

// What a run does when its device has no known peak (a GPU missing from the datasheet registry,
// a MIG slice): gpt_step times it anyway, with MFU "n/a"; ddp_step and gpt_decode, whose reports
// are built on the peak, refuse with the reason.
enum class UnknownPeak { kRefuse, kAllow };

// The test hook of an unknown device: MLBENCH_TEST_NO_PEAK=NAME (environment) makes the run's
// device one named NAME without a known peak, on the CPU too (unless --peak_flops or --ceilings
// gives a figure), as a GPU missing from the datasheet registry would be; documented in gpt_step's
// --help (tools/gpu/gpu_check_selftest.sh runs gpt_step so).
inline constexpr char kNoPeakEnv[] = "MLBENCH_TEST_NO_PEAK";

// Chooses the figure: --peak_flops; else on the CPU the measured peak in the run's dtype: fp32's
// FMA loop or bf16's dot-product loops (--ceilings, or a sub-second measurement now, on the thread
// count set for the run; for fp32 the declared cores x lanes x units x clock only if that fails); on CUDA --ceilings (measured) or the datasheet for
// `device_name` (the name of the GPU the run uses) and the dtype. A device without a datasheet
// figure: InvalidArgument naming it, or with UnknownPeak::kAllow a SourcePeak of origin kNone,
// flops_per_s 0 and the source "n/a: no peak for 'NAME' ...".
absl::StatusOr<SourcePeak> ChooseSourcePeak(const StepOptions& o, const std::string& device_name,
                                            UnknownPeak unknown = UnknownPeak::kRefuse);

// ChooseSourcePeak, then PeakForRank with `threads` (the run's thread count; <= 0: the OpenMP
// default now) and this machine's physical cores. A figure measured at start-up is refused here,
// before the run, when MLBENCH_PEAK_RECORD is malformed (harness/peak_record.h).
absl::StatusOr<RankPeak> ChooseRunPeak(const StepOptions& o, const std::string& device_name, int threads,
                                       UnknownPeak unknown = UnknownPeak::kRefuse);

// The peak a run divides by once its timed work is done: the best of its probes.
struct ProbedPeak {
  accounting::Peak peak;          // flops_per_s: the best probe; source: the probes, then the start-up's
  accounting::PeakProbes probes;  // before: the start-up probe; after: the one now (both scaled by
                                  // the rule); both 0 when the figure was not measured at start-up
};

// The test hook of the second probe: the environment variable MLBENCH_TEST_AFTER_PROBE_SCALE=X
// (0 < X <= 10) multiplies the after-probe's figure by X, a slow (X < 1) or fast moment on
// demand (macro/disturbed_test.sh); documented in the binaries' --help. Unset: 1.
inline constexpr char kAfterProbeScaleEnv[] = "MLBENCH_TEST_AFTER_PROBE_SCALE";

// After the timed work: when `run_peak` was measured at start-up (PeakOrigin::kMeasuredAtStartup,
// the CPU's FMA or bf16 loop), measures it again (micro::MeasureCpuFmaPeak, or
// micro::MeasureCpuBf16PeakNow for a bf16 run, on the threads set
// now, which are the run's), scales it by the same rule, and takes the best of the two; any other
// figure (--peak_flops, --ceilings, a datasheet) is returned as is, without probes. Errors: the
// measurement failed; a malformed MLBENCH_TEST_AFTER_PROBE_SCALE.
//
// A probed peak is then compared with this machine's record (peak_record_check.h): the best probe
// and the STREAM figures this process measured at start-up (gpt_step's triad, gpt_decode's copy)
// go into probes.records, which JudgeDisturbance turns into DISTURBED when one is more than 15%
// below its record, and the peak's source names the record. Probes that are quiet raise the
// record (one line on stderr says so); with MLBENCH_TEST_AFTER_PROBE_SCALE set they never do.
absl::StatusOr<ProbedPeak> ProbeAgain(const RankPeak& run_peak);

// The probes' figure from two measurements of the same rule (pure; ProbeAgain's arithmetic).
ProbedPeak BestOfProbes(const RankPeak& run_peak, double after_flops_per_s);

}  // namespace macro

#endif  // MACRO_RANK_PEAK_H_
