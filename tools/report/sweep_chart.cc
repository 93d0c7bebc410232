// The matmul sweep: GFLOP/s against size per matmul family, peaks as dashed lines.
#include "tools/report/sweep_chart.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/report/chart_frame.h"
#include "tools/report/family.h"
#include "tools/report/label_layout.h"
#include "tools/report/scale.h"
#include "tools/report/svg_writer.h"
#include "tools/report/units.h"

namespace report {
namespace {

constexpr double kWidth = 980, kHeight = 460;

struct SweepPoint {
  std::string case_name, family;
  MatmulDims dims;
  double size = 0, gflops = 0;
  bool cube = false;
};

// Every matmul case with a positive FLOP/s, at its (equivalent) size.
std::vector<SweepPoint> CollectSweepPoints(const RunData& data) {
  std::vector<SweepPoint> pts;
  for (const Case& c : data.cases) {
    if (!c.error.empty()) continue;
    auto d = MatmulDimsOf(c.name);
    auto f = c.FlopsPerSecond();
    if (!d || !f || !(*f > 0)) continue;
    SweepPoint p;
    p.case_name = c.name;
    p.family = c.family;
    p.dims = *d;
    p.size = d->EquivalentSize();
    p.gflops = *f / 1e9;
    p.cube = d->m == d->k && d->k == d->n;
    pts.push_back(p);
  }
  return pts;
}

std::string FamilyColour(const std::map<std::string, std::string>& colours, const std::string& family) {
  auto it = colours.find(family);
  return it == colours.end() ? "#7f7f7f" : it->second;
}

// The peak lines (dashed), each with its label.
void DrawPeakLines(const std::vector<const Roof*>& peaks, const PlotRect& plot, const LinearScale& sy, SvgWriter* svg,
                   LabelLayout* labels) {
  for (const Roof* r : peaks) {
    const double y = sy(r->peak_flops / 1e9);
    svg->Line(plot.x, y, plot.right(), y, {{"stroke", "#1f2933"}, {"stroke-width", "1.6"}, {"stroke-dasharray", "7 4"}});
    const std::string text = absl::StrCat(r->dtype.empty() ? "" : r->dtype + " ", "peak ",
                                          FormatSi(r->peak_flops, "FLOP/s"), " (", r->kind, ")");
    svg->Text(plot.x + 8, y - 6, text, WithHalo({{"font-size", "12"}, {"font-weight", "bold"}, {"fill", "#1f2933"}}));
    labels->AddBox({plot.x + 8, y - 18, plot.x + 8 + TextWidth(text, 12), y - 2});
  }
}

// One family: its cubes joined by a line (filled points), other shapes hollow and labelled.
void DrawFamily(const std::vector<SweepPoint>& pts, const std::string& fam, const std::string& colour,
                const LogScale& sx, const LinearScale& sy, SvgWriter* svg, LabelLayout* labels) {
  std::vector<SweepPoint> cubes;
  for (const SweepPoint& p : pts) {
    if (p.family == fam && p.cube) cubes.push_back(p);
  }
  std::sort(cubes.begin(), cubes.end(), [](const SweepPoint& a, const SweepPoint& b) { return a.size < b.size; });
  std::vector<std::pair<double, double>> line;
  for (const SweepPoint& p : cubes) line.push_back({sx(p.size), sy(p.gflops)});
  svg->Polyline(line, {{"stroke", colour}, {"stroke-width", "2"}});
  for (const SweepPoint& p : pts) {
    if (p.family != fam) continue;
    const std::string tip = absl::StrCat(StripRunSuffixes(p.case_name), "\n",
                                         absl::StrFormat("%.1f GFLOP/s", p.gflops));
    if (p.cube) {
      svg->Circle(sx(p.size), sy(p.gflops), 4.5, {{"fill", colour}, {"stroke", "#ffffff"}, {"stroke-width", "1"}}, tip);
      continue;
    }
    svg->Circle(sx(p.size), sy(p.gflops), 4.5, {{"fill", "#ffffff"}, {"stroke", colour}, {"stroke-width", "2"}}, tip);
    const std::string label = ShortLabel(p.case_name);
    if (auto spot = labels->Place(sx(p.size), sy(p.gflops), 5, label)) {
      svg->Text(spot->x, spot->y, label, WithHalo({{"font-size", "10.5"}, {"fill", kMutedInk}}), spot->anchor);
    }
  }
}

}  // namespace

SweepChart DrawMatmulSweep(const RunData& data, const RoofChoice& roofs,
                           const std::map<std::string, std::string>& colours) {
  SweepChart chart;
  const std::vector<SweepPoint> pts = CollectSweepPoints(data);
  chart.points = static_cast<int>(pts.size());
  if (pts.empty()) return chart;

  // Peaks to draw: the roofs of the dtypes in the sweep.
  std::vector<const Roof*> peaks;
  for (const SweepPoint& p : pts) {
    const Roof* r = RoofFor(roofs, p.case_name);
    if (r != nullptr && std::find(peaks.begin(), peaks.end(), r) == peaks.end()) peaks.push_back(r);
  }
  std::vector<double> sizes, ys;
  for (const SweepPoint& p : pts) sizes.push_back(p.size), ys.push_back(p.gflops);
  for (const Roof* r : peaks) ys.push_back(r->peak_flops / 1e9);
  Domain xd = PowerOfTwoDomain(sizes);
  Domain yd = NiceLinearDomainFromZero(ys, 0.08);
  PlotRect plot{92, 72, kWidth - 92 - 250, kHeight - 72 - 58};
  LogScale sx(xd.lo, xd.hi, plot.x, plot.right());
  LinearScale sy(yd.lo, yd.hi, plot.bottom(), plot.y);

  SvgWriter svg(kWidth, kHeight, ChartRootAttrs(plot, xd.lo, xd.hi, yd.lo, yd.hi, "matmul-sweep"));
  svg.Rect(0, 0, kWidth, kHeight, {{"fill", "#ffffff"}});
  DrawTitle(&svg, 16, 26, "Matmul sweep: GFLOP/s against size",
            {"Filled points joined by lines: cubes M = K = N. Hollow points: other shapes at the cube "
             "root of M x K x N.",
             "Dashed: the peak each case divides by."});
  DrawPlotBackground(&svg, plot);
  DrawPowerOfTwoGrid(&svg, plot, sx);
  DrawLinearGridY(&svg, plot, sy);
  DrawFrameAndAxisTitles(&svg, plot, "Matrix size (M = K = N, or the cube root of M x K x N)", "GFLOP/s");

  LabelLayout labels(plot, 10.5);
  DrawPeakLines(peaks, plot, sy, &svg, &labels);
  std::vector<std::string> families;
  for (const SweepPoint& p : pts) families.push_back(p.family);
  const std::vector<std::string> order = FamilyOrder(families);
  for (const SweepPoint& p : pts) labels.AddObstacle(sx(p.size), sy(p.gflops), 5);
  for (const std::string& fam : order) DrawFamily(pts, fam, FamilyColour(colours, fam), sx, sy, &svg, &labels);

  // Legend.
  double lx = plot.right() + 26, ly = plot.y + 8;
  svg.Text(lx, ly, "Library / dtype", {{"font-size", "12"}, {"font-weight", "bold"}, {"fill", kInk}});
  ly += 20;
  for (const std::string& fam : order) {
    int n = 0;
    for (const SweepPoint& p : pts) n += p.family == fam;
    DrawLegendEntry(&svg, lx, ly, FamilyColour(colours, fam), absl::StrCat(fam, " (", n, ")"));
    ly += 19;
  }
  chart.svg = svg.Finish();
  return chart;
}

}  // namespace report
