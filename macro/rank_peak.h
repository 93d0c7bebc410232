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
#include "accounting/peaks.h"
#include "macro/step_options.h"

namespace macro {

enum class PeakOrigin {
  kMeasuredAtStartup,  // CPU: the FMA loop run now
  kCeilingsFile,       // --ceilings: a measured-ceilings file
  kDatasheet,          // a GPU's datasheet, or the CPU's declared cores x lanes x units x clock
  kFlag,               // --peak_flops
};
// "measured at start-up", "--ceilings file", "datasheet", "--peak_flops".
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
  PeakRule rule = PeakRule::kAsIs;
  double scale = 1;       // peak.flops_per_s / chosen figure
  std::string rule_text;  // "used as is: measured with this run's 1 thread", "x 1/2 cores: ..."
};

// Errors: device not cpu or cuda; on the CPU threads or cores < 1, measured_threads < 0; a
// figure that is not finite and > 0.
absl::StatusOr<RankPeak> PeakForRank(const SourcePeak& chosen, const RunDevice& run);

// Chooses the figure: --peak_flops; else on the CPU the measured fp32 FMA peak (--ceilings, or a
// sub-second measurement now, on the thread count set for the run; the declared cores x lanes x
// units x clock only if that fails); on CUDA --ceilings (measured) or the datasheet for
// `device_name` (the name of the GPU the run uses) and the dtype.
absl::StatusOr<SourcePeak> ChooseSourcePeak(const StepOptions& o, const std::string& device_name);

// ChooseSourcePeak, then PeakForRank with `threads` (the run's thread count; <= 0: the OpenMP
// default now) and this machine's physical cores.
absl::StatusOr<RankPeak> ChooseRunPeak(const StepOptions& o, const std::string& device_name, int threads);

}  // namespace macro

#endif  // MACRO_RANK_PEAK_H_
