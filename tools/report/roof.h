// Which ceilings the roofline is drawn against, and what kind they are.
//
// With --ceilings=FILE (//micro:ceilings' measured file, accounting/ceilings.h) whose machine
// matches the run's (context cpu_model, mlbench_cpu, cuda_device, the run context's
// cpu.model_name / gpu.name, or tools/bench's mlbench.cpu_model / mlbench.gpu_name), one roof
// per dtype of the file, sharing its bandwidth.
// A file of another machine is not used: a problem says so and the run's own peaks are drawn.
// Without a usable file, the peaks the cases divided by (counters peak_FLOP/s, peak_bytes/s;
// their source in the label "peak: ..."): per dtype the highest, since a roof must bound every
// point. The kind comes from the source: "measured" (a ceilings file or a start-up
// measurement), "datasheet", "declared" (cores x lanes x clock), "flag".
#ifndef TOOLS_REPORT_ROOF_H_
#define TOOLS_REPORT_ROOF_H_

#include <optional>
#include <string>
#include <vector>

#include "accounting/ceilings.h"
#include "tools/report/memory_roof.h"
#include "tools/report/run_data.h"

namespace report {

struct Roof {
  std::string dtype;      // "fp32", ...; "" when the cases do not say
  double peak_flops = 0;  // FLOP/s
  double bandwidth = 0;   // bytes/s, the single slope (STREAM copy); 0 when unknown (no slope)
  std::string kind;       // "measured ceilings", "measured at start-up", "datasheet", ...
  std::string source;     // the full source text

  double Ridge() const { return bandwidth > 0 ? peak_flops / bandwidth : 0; }
};

struct RoofChoice {
  std::vector<Roof> roofs;            // sorted by peak, highest first; empty: no peak known
  std::string summary;                // one line for the chart: what the roof is and whence
  std::vector<std::string> problems;  // e.g. a ceilings file of another machine
  MemoryRoofChoice memory;            // the roofs per traffic kind and cache level; its problems
                                      // are in `problems` too
};

// The kind of a peak source string (see above); "reported by the run" when unrecognised.
std::string PeakKind(const std::string& source);

// The machine names the run's context gives (non-empty, not "none...").
std::vector<std::string> RunMachines(const RunData& data);

// `ceilings` is the file read with accounting::ReadCeilings (nullopt: none given).
RoofChoice ChooseRoofs(const RunData& data, const std::optional<accounting::Ceilings>& ceilings,
                       const std::string& ceilings_path);

// The roof a case is judged against: the one of its dtype, else the highest; nullptr if none.
const Roof* RoofFor(const RoofChoice& choice, const std::string& case_name);

}  // namespace report

#endif  // TOOLS_REPORT_ROOF_H_
