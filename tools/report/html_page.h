// index.html: one self-contained page (inline CSS, inline SVG, a few lines of inline script
// to sort the table; nothing fetched at view time). Sections, top to bottom:
//   heading      the machine, the number of cases, what the roof is; the --note line
//   roofline     the chart and its notes (points above the roof)
//   machine      CPU or GPU, ISA, the roof's peak and bandwidth and their kind, the memory roofs
//                per traffic kind, build, commit, then every context key in a collapsed list
//   problems     what is missing or wrong in the input (only when there is something)
//   charts       matmul sweep, step times, MFU loss breakdown: each, or a line saying why absent
//   scaling      with sweep points: the machines, a table of the knees, the trend breaks, and the
//                scaling map's charts
//   history      with --history: one trend chart per series of the database (trend_chart.h)
//   cases        a sortable table, one row per case: time, FLOP/s, bytes/s, intensity, % of
//                peak, % of its own roof and that roof's name (point_roof.h: its traffic kind
//                and level when it counts its traffic, else the run's pct_of_roofline counter),
//                verified (and the gate status when a summary is given)
//   gate         the gate's verdict, details and statuses (when --gate is given)
// A missing or non-finite value shows as an em dash and sorts last.
#ifndef TOOLS_REPORT_HTML_PAGE_H_
#define TOOLS_REPORT_HTML_PAGE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/report/gate_summary.h"
#include "tools/report/roof.h"
#include "tools/report/run_data.h"

namespace report {

struct PageContent {
  std::string machine;  // headline machine name
  std::string command;  // the command that made the page (shown in the footer)
  std::string note;     // a line from the user under the heading; may be empty
  std::string roofline_svg;
  std::vector<std::string> roofline_notes;
  std::string sweep_svg;     // "" when absent
  std::string sweep_absent;  // why, when absent
  std::string steps_svg;
  std::string steps_absent;
  std::string mfu_svg;
  std::string mfu_absent;
  // The scaling map (scaling_charts.h), when the input has sweep points: its charts, why any is
  // absent, the machines' legend lines, the knee and trend-break lines, the map's problems.
  std::vector<std::string> scaling_svgs;
  std::vector<std::string> scaling_absent;
  std::vector<std::string> scaling_machines;
  std::vector<std::string> scaling_knees;
  std::vector<std::string> scaling_breaks;
  std::vector<std::string> scaling_problems;
  std::vector<std::string> trend_svgs;  // --history: one chart per series, in the database's order
  std::string history_source;           // --history's file, "" without one
  std::string history_left_out;         // the series not drawn (--max_trends) and how to see them
  std::map<std::string, std::string> colours;  // family -> colour
};

// The ISA the binaries were compiled for, from the context's compile_flags
// ("... compiler targeted AVX-512F)") or the run context's build.target_isa; "" when neither.
std::string CompiledIsa(const RunData& data);

std::string RenderPage(const RunData& data, const RoofChoice& roofs, const std::optional<GateSummary>& gate,
                       const PageContent& content);

}  // namespace report

#endif  // TOOLS_REPORT_HTML_PAGE_H_
