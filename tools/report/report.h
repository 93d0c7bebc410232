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
#include "tools/report/out_folder.h"
#include "tools/report/roof.h"
#include "tools/report/run_data.h"
#include "tools/report/scaling_data.h"
#include "tools/report/trend_chart.h"

namespace report {

struct ReportInputs {
  RunData data;
  std::optional<accounting::Ceilings> ceilings;  // --ceilings, read
  std::string ceilings_path;
  std::optional<GateSummary> gate;
  std::string command;  // shown in the page's footer
  std::string note;     // --note: the user's line under the heading (e.g. what the machine is)
  std::vector<TrendSeries> trends;  // --history, read (trend_chart.h): the series drawn
  std::string history_path;
  std::string history_metric = "real_time";  // --history_metric
  TrendSelection trend_selection;            // --history_case, --max_trends
  size_t trends_matching = 0;                // series of the metric (and --history_case), drawn or not
};

struct Report {
  // File name -> content: index.html and roofline.svg always; matmul_sweep.svg, steps.svg and
  // mfu_breakdown.svg when the input has what they draw; trend_1.svg, trend_2.svg, ... with
  // --history, one per series; the scaling map's five (scaling_charts.h) when the input has
  // //tools:sweep points (BM_Sweep/...).
  std::map<std::string, std::string> files;
  RoofChoice roofs;
  std::vector<std::string> notes;  // problems and chart notes, for the console too
  std::vector<std::string> knees;  // the scaling map's knee lines (scaling_data.h), for the console
};

Report BuildReport(const ReportInputs& in);

// What --history left out when it drew fewer series than match (count, and how to see them);
// "" when it drew them all.
std::string TrendsLeftOut(const ReportInputs& in);

// Writes the files into `dir` (made, one level, when missing) as tools/report/out_folder.h says:
// each atomically; a manifest names them; only files of an earlier report that this one lacks
// are removed; a folder of other files, or a file of a report's name the report did not write,
// is refused unless `force` (then replaced; still nothing else removed).
absl::StatusOr<FolderWrite> WriteReport(const Report& report, const std::string& dir, bool force = false);

}  // namespace report

#endif  // TOOLS_REPORT_REPORT_H_
