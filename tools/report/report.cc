// BuildReport: colours, roofs, the four charts, the scaling map and the page; WriteReport: the folder.
#include "tools/report/report.h"

#include "absl/strings/str_cat.h"
#include "tools/report/family.h"
#include "tools/report/html_page.h"
#include "tools/report/mfu_chart.h"
#include "tools/report/roofline_chart.h"
#include "tools/report/scaling_charts.h"
#include "tools/report/scaling_data.h"
#include "tools/report/steps_chart.h"
#include "tools/report/sweep_chart.h"

namespace report {
namespace {

std::string MachineName(const RunData& d) {
  std::vector<std::string> machines = RunMachines(d);
  return machines.empty() ? "" : machines.front();
}

}  // namespace

Report BuildReport(const ReportInputs& in) {
  Report r;
  const RunData& d = in.data;
  r.roofs = ChooseRoofs(d, in.ceilings, in.ceilings_path);

  std::vector<std::string> families;
  for (const Case& c : d.cases) families.push_back(c.family);
  PageContent page;
  const std::vector<std::string> order = FamilyOrder(families);
  for (size_t i = 0; i < order.size(); ++i) page.colours[order[i]] = FamilyColour(static_cast<int>(i));
  page.machine = MachineName(d);
  page.command = in.command;
  page.note = in.note;

  RooflineChart roofline = DrawRoofline(d, r.roofs, page.colours, page.machine);
  page.roofline_svg = roofline.svg;
  page.roofline_notes = roofline.notes;
  r.files["roofline.svg"] = roofline.svg;

  SweepChart sweep = DrawMatmulSweep(d, r.roofs, page.colours);
  if (sweep.svg.empty()) {
    page.sweep_absent =
        "No matmul sweep: the input has no BM_Matmul case with FLOP/s "
        "(run //micro:matmul with --benchmark_out=FILE and pass it with --in).";
  } else {
    page.sweep_svg = sweep.svg;
    r.files["matmul_sweep.svg"] = sweep.svg;
  }

  StepsChart steps = DrawSteps(d.steps);
  if (steps.svg.empty()) {
    bool has_gpt = false;
    for (const Case& c : d.cases) has_gpt |= c.family.rfind("gpt_step", 0) == 0;
    page.steps_absent = has_gpt
                            ? "No step times: the gpt_step run has no per-step times (step_times_s); "
                              "it was made by an older gpt_step, or written to stdout instead of "
                              "--benchmark_out=FILE."
                            : "No step times: the input has no gpt_step run (bazel run //macro:gpt_step -- "
                              "--benchmark_out=FILE).";
  } else {
    page.steps_svg = steps.svg;
    r.files["steps.svg"] = steps.svg;
  }

  if (d.breakdowns.empty()) {
    page.mfu_absent =
        "No MFU loss breakdown in the input: the run has none (an \"mfu_breakdown\" object of "
        "named parts in percent that add up to 100; see tools/report/README.md).";
  } else {
    page.mfu_svg = DrawMfuBreakdown(d.breakdowns.front());
    r.files["mfu_breakdown.svg"] = page.mfu_svg;
  }

  const ScalingMap scaling = CollectScaling(d);
  if (!scaling.empty() || !scaling.problems.empty()) {
    ScalingCharts charts = DrawScalingCharts(scaling);
    for (auto& [name, svg] : charts.files) {
      page.scaling_svgs.push_back(svg);
      r.files[name] = std::move(svg);
    }
    page.scaling_absent = charts.absent;
    page.scaling_knees = scaling.knee_lines;
    page.scaling_breaks = scaling.break_lines;
    page.scaling_problems = scaling.problems;
    for (const ScalingMachine& m : scaling.machines) page.scaling_machines.push_back(m.Legend());
    r.knees = scaling.knee_lines;
  }

  page.history_source = in.history_path;
  page.history_left_out = TrendsLeftOut(in);
  for (size_t i = 0; i < in.trends.size(); ++i) {
    const std::string name = absl::StrCat("trend_", i + 1, ".svg");
    std::string svg = DrawTrend(in.trends[i], absl::StrCat("trend-", i + 1));
    page.trend_svgs.push_back(svg);
    r.files[name] = std::move(svg);
  }

  r.notes = r.roofs.problems;
  if (!page.history_left_out.empty()) r.notes.push_back(page.history_left_out);
  r.notes.insert(r.notes.end(), d.problems.begin(), d.problems.end());
  r.notes.insert(r.notes.end(), roofline.notes.begin(), roofline.notes.end());
  r.notes.insert(r.notes.end(), page.scaling_problems.begin(), page.scaling_problems.end());
  r.notes.insert(r.notes.end(), page.scaling_breaks.begin(), page.scaling_breaks.end());
  r.files["index.html"] = RenderPage(d, r.roofs, in.gate, page);
  return r;
}

std::string TrendsLeftOut(const ReportInputs& in) {
  const size_t drawn = in.trends.size();
  if (in.history_path.empty() || in.trends_matching <= drawn) return "";
  const std::string& re = in.trend_selection.case_regex;
  return absl::StrCat(
      "--history: drew ", drawn, " of the ", in.trends_matching, " series of ", in.history_metric,
      re.empty() ? "" : absl::StrCat(" whose case matches --history_case='", re, "'"), " (the first ", drawn,
      " by machine and case; --max_trends=", in.trend_selection.max_series, "); ", in.trends_matching - drawn,
      " left out. List them all with `bazel run //tools:history -- --db=", in.history_path,
      " list` (change points: `detect`); "
      "draw others with --history_case=REGEX, or more with --max_trends=N (at most ",
      kMostMaxTrends, ")");
}

absl::StatusOr<FolderWrite> WriteReport(const Report& report, const std::string& dir, bool force) {
  if (!report.files.count("index.html")) return absl::InternalError("no index.html was built");
  return WriteReportFolder(dir, report.files, force);
}

}  // namespace report
