// The whole report from its inputs: charts and page as named files, and writing them to a
// folder (each through a temporary name in that folder, then renamed: gate::WriteFileAtomically).
#ifndef TOOLS_REPORT_REPORT_H_
#define TOOLS_REPORT_REPORT_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "accounting/ceilings.h"
#include "tools/report/gate_summary.h"
#include "tools/report/roof.h"
#include "tools/report/run_data.h"
#include "tools/report/trend_chart.h"

namespace report {

struct ReportInputs {
  RunData data;
  std::optional<accounting::Ceilings> ceilings;  // --ceilings, read
  std::string ceilings_path;
  std::optional<GateSummary> gate;
  std::string command;  // shown in the page's footer
  std::string note;     // --note: the user's line under the heading (e.g. what the machine is)
  std::vector<TrendSeries> trends;  // --history, read (trend_chart.h)
  std::string history_path;
};

struct Report {
  // File name -> content: index.html and roofline.svg always; matmul_sweep.svg, steps.svg and
  // mfu_breakdown.svg when the input has what they draw; trend_1.svg, trend_2.svg, ... with
  // --history, one per series.
  std::map<std::string, std::string> files;
  RoofChoice roofs;
  std::vector<std::string> notes;  // problems and chart notes, for the console too
};

Report BuildReport(const ReportInputs& in);

// Creates `dir` (one level) if needed and writes every file atomically; stale chart files of
// an earlier report that this one lacks are removed, so the folder matches the page.
absl::Status WriteReport(const Report& report, const std::string& dir);

}  // namespace report

#endif  // TOOLS_REPORT_REPORT_H_
