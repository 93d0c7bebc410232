// BuildReport: colours, roofs, the four charts and the page; WriteReport: the folder.
#include "tools/report/report.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tools/gate/gate_io.h"
#include "tools/report/family.h"
#include "tools/report/html_page.h"
#include "tools/report/mfu_chart.h"
#include "tools/report/roofline_chart.h"
#include "tools/report/steps_chart.h"
#include "tools/report/sweep_chart.h"

namespace report {
namespace {

const char* const kChartFiles[] = {"roofline.svg", "matmul_sweep.svg", "steps.svg", "mfu_breakdown.svg"};

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

  page.history_source = in.history_path;
  for (size_t i = 0; i < in.trends.size(); ++i) {
    const std::string name = absl::StrCat("trend_", i + 1, ".svg");
    std::string svg = DrawTrend(in.trends[i], absl::StrCat("trend-", i + 1));
    page.trend_svgs.push_back(svg);
    r.files[name] = std::move(svg);
  }

  r.notes = r.roofs.problems;
  r.notes.insert(r.notes.end(), d.problems.begin(), d.problems.end());
  r.notes.insert(r.notes.end(), roofline.notes.begin(), roofline.notes.end());
  r.files["index.html"] = RenderPage(d, r.roofs, in.gate, page);
  return r;
}

absl::Status WriteReport(const Report& report, const std::string& dir) {
  if (dir.empty())
    return absl::InvalidArgumentError("--out is empty: give the folder to write the report to");
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) {
    if (mkdir(dir.c_str(), 0755) != 0) {
      return absl::PermissionDeniedError(absl::StrCat(
          "cannot create --out folder '", dir, "': ", std::strerror(errno), " (its parent must exist)"));
    }
  } else if (!S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat("--out='", dir, "' exists and is not a folder"));
  }
  // Charts first, the page last: a reader who sees the new page sees its charts too.
  for (const auto& [name, text] : report.files) {
    if (name == "index.html") continue;
    if (auto s = gate::WriteFileAtomically(absl::StrCat(dir, "/", name), text); !s.ok()) return s;
  }
  for (const char* name : kChartFiles) {
    if (!report.files.count(name)) std::remove(absl::StrCat(dir, "/", name).c_str());
  }
  // Trend charts of an earlier report with more series.
  if (DIR* d = opendir(dir.c_str())) {
    std::vector<std::string> stale;
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (absl::StartsWith(name, "trend_") && absl::EndsWith(name, ".svg") && !report.files.count(name)) {
        stale.push_back(name);
      }
    }
    closedir(d);
    for (const std::string& name : stale) std::remove(absl::StrCat(dir, "/", name).c_str());
  }
  auto it = report.files.find("index.html");
  if (it == report.files.end()) return absl::InternalError("no index.html was built");
  return gate::WriteFileAtomically(absl::StrCat(dir, "/index.html"), it->second);
}

}  // namespace report
