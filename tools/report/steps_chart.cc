// Step-time chart: warm-up shaded, timed steps, median line.
#include "tools/report/steps_chart.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/report/chart_frame.h"
#include "tools/report/family.h"
#include "tools/report/scale.h"
#include "tools/report/svg_writer.h"
#include "tools/report/units.h"

namespace report {

double MedianOf(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

StepsChart DrawSteps(const std::vector<StepSeries>& series) {
  StepsChart chart;
  if (series.empty()) return chart;
  const StepSeries& s = series.front();
  const int nw = static_cast<int>(s.warmup_s.size());
  const int nt = static_cast<int>(s.timed_s.size());
  std::vector<double> ms;
  for (double v : s.warmup_s) ms.push_back(v * 1e3);
  for (double v : s.timed_s) ms.push_back(v * 1e3);
  chart.median_s = MedianOf(s.timed_s);

  constexpr double kWidth = 980, kHeight = 400;
  PlotRect plot{92, 72, kWidth - 92 - 250, kHeight - 72 - 58};
  const int n = nw + nt;
  LinearScale sx(0.5, n + 0.5, plot.x, plot.right());
  Domain yd = NiceLinearDomainFromZero(ms, 0.08);
  LinearScale sy(yd.lo, yd.hi, plot.bottom(), plot.y);

  SvgWriter svg(kWidth, kHeight, ChartRootAttrs(plot, 0.5, n + 0.5, yd.lo, yd.hi, "steps"));
  svg.Rect(0, 0, kWidth, kHeight, {{"fill", "#ffffff"}});
  std::string sub = absl::StrCat(StripRunSuffixes(s.case_name), ": ", nw, " warm-up + ", nt, " timed steps");
  if (series.size() > 1) absl::StrAppend(&sub, " (the first of ", series.size(), " series in the input)");
  DrawTitle(&svg, 16, 26, "Step time per step", {sub});
  DrawPlotBackground(&svg, plot);
  if (nw > 0) {
    const double x1 = sx(nw + 0.5);
    svg.Rect(plot.x, plot.y, x1 - plot.x, plot.h, {{"fill", "#fdebd0"}, {"class", "warmup"}});
    svg.Text(plot.x + 6, plot.y + 16, "warm-up (not timed)", {{"font-size", "11.5"}, {"fill", "#8a5a00"}});
  }
  DrawLinearGridX(&svg, plot, sx);
  DrawLinearGridY(&svg, plot, sy);
  DrawFrameAndAxisTitles(&svg, plot, "Step", "Step time (ms)");

  std::vector<std::pair<double, double>> line;
  for (int i = 0; i < n; ++i) {
    if (std::isfinite(ms[i])) line.push_back({sx(i + 1), sy(ms[i])});
  }
  svg.Polyline(line, {{"stroke", "#0072b2"}, {"stroke-width", "1.8"}});
  for (int i = 0; i < n; ++i) {
    if (!std::isfinite(ms[i])) continue;
    const bool warm = i < nw;
    svg.Circle(
        sx(i + 1), sy(ms[i]), 4,
        {{"fill", warm ? "#e69f00" : "#0072b2"}, {"stroke", "#ffffff"}, {"stroke-width", "1"}},
        absl::StrFormat("%s step %d: %.2f ms", warm ? "warm-up" : "timed", warm ? i + 1 : i + 1 - nw, ms[i]));
  }
  if (chart.median_s > 0) {
    const double y = sy(chart.median_s * 1e3);
    const double x0 = nw > 0 ? sx(nw + 0.5) : plot.x;
    svg.Line(x0, y, plot.right(), y,
             {{"stroke", "#d55e00"}, {"stroke-width", "1.6"}, {"stroke-dasharray", "6 4"}});
    svg.Text(plot.right() - 6, y - 6,
             absl::StrCat("median of the timed steps ", FormatSeconds(chart.median_s)),
             WithHalo({{"font-size", "12"}, {"font-weight", "bold"}, {"fill", "#d55e00"}}), "end");
  }
  double lx = plot.right() + 26, ly = plot.y + 8;
  DrawLegendEntry(&svg, lx, ly, "#e69f00", "warm-up step");
  DrawLegendEntry(&svg, lx, ly + 19, "#0072b2", "timed step");
  DrawLegendEntry(&svg, lx, ly + 38, "#d55e00", "median (timed)", true, "6 4");
  chart.svg = svg.Finish();
  return chart;
}

}  // namespace report
