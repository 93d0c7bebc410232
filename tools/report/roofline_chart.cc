// The roofline chart: roofs, ridge, points by family, counting-error flags, legend.
#include "tools/report/roofline_chart.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/roofline.h"
#include "tools/report/chart_frame.h"
#include "tools/report/family.h"
#include "tools/report/label_layout.h"
#include "tools/report/scale.h"
#include "tools/report/svg_writer.h"
#include "tools/report/units.h"

namespace report {

double Attainable(const Roof& roof, double intensity) {
  if (roof.bandwidth <= 0) return roof.peak_flops;
  // accounting::Roofline with flops = intensity, bytes = 1 gives min(peak, I x bandwidth).
  return accounting::Roofline(roof.peak_flops, roof.bandwidth, intensity, 1.0).attainable_flops_per_s;
}

namespace {

constexpr double kWidth = 980, kHeight = 600;
constexpr double kPointRadius = 5.5;

std::string ColourOf(const std::map<std::string, std::string>& colours, const std::string& family) {
  auto it = colours.find(family);
  return it == colours.end() ? "#7f7f7f" : it->second;
}

const char* const kRoofDashes[] = {"", "7 4", "2 3", "10 3 2 3"};

}  // namespace

RooflineChart DrawRoofline(const RunData& data, const RoofChoice& roofs,
                           const std::map<std::string, std::string>& colours,
                           const std::string& machine) {
  RooflineChart chart;
  // Points: every case with a finite positive intensity and FLOP/s.
  struct Marker {  // FLOP/s without bytes
    std::string case_name, label, family, colour;
    double flops;
  };
  std::vector<Marker> markers;
  for (const Case& c : data.cases) {
    if (!c.error.empty()) continue;
    auto f = c.FlopsPerSecond();
    auto i = c.Intensity();
    if (f && *f > 0 && i && *i > 0) {
      RooflinePoint p;
      p.case_name = c.name;
      p.label = ShortLabel(c.name);
      p.family = c.family;
      p.colour = ColourOf(colours, c.family);
      p.intensity = *i;
      p.flops = *f;
      if (const Roof* r = RoofFor(roofs, c.name)) {
        p.attainable = Attainable(*r, p.intensity);
        p.above_roof = p.flops > p.attainable * (1 + kRoofTolerance);
      }
      chart.points.push_back(p);
    } else if (f && *f > 0 && !c.BytesPerSecond()) {
      markers.push_back({c.name, ShortLabel(c.name), c.family, ColourOf(colours, c.family), *f});
    }
  }

  // Domains: points, ridges, roofs.
  std::vector<double> xs, ys;
  for (const RooflinePoint& p : chart.points) xs.push_back(p.intensity), ys.push_back(p.flops);
  for (const Marker& m : markers) ys.push_back(m.flops);
  for (const Roof& r : roofs.roofs) {
    ys.push_back(r.peak_flops * 1.6);  // room above the roof for its label
    if (r.Ridge() > 0) xs.push_back(r.Ridge());
  }
  Domain xd = NiceLogDomain(xs, 3);
  Domain yd = NiceLogDomain(ys, 3);
  // The slope should be visible: start the y axis no higher than the slope at the left edge
  // allows for one decade of it.
  PlotRect plot{92, 92, kWidth - 92 - 250, kHeight - 92 - 58};
  LogScale sx(xd.lo, xd.hi, plot.x, plot.right());
  LogScale sy(yd.lo, yd.hi, plot.bottom(), plot.y);

  SvgWriter svg(kWidth, kHeight, ChartRootAttrs(plot, xd.lo, xd.hi, yd.lo, yd.hi, "roofline"));
  svg.Rect(0, 0, kWidth, kHeight, {{"fill", "#ffffff"}});
  std::vector<std::string> subtitle = WrapText(roofs.summary, 150);
  if (subtitle.size() > 3) subtitle.resize(3);
  DrawTitle(&svg, 16, 26, machine.empty() ? "Roofline" : absl::StrCat("Roofline: ", machine), subtitle);
  DrawPlotBackground(&svg, plot);
  DrawLogGrid(&svg, plot, sx, true);
  DrawLogGrid(&svg, plot, sy, false);
  DrawFrameAndAxisTitles(&svg, plot, "Arithmetic intensity (FLOP/byte)", "Performance (FLOP/s)");

  LabelLayout labels(plot, 11);
  for (RooflinePoint& p : chart.points) {
    p.px = sx(p.intensity);
    p.py = sy(p.flops);
  }

  // Roofs: the slope up to the ridge, then the flat compute roof.
  svg.BeginGroup({{"class", "roofs"}});
  for (size_t k = 0; k < roofs.roofs.size(); ++k) {
    const Roof& r = roofs.roofs[k];
    Attrs line = {{"stroke", "#1f2933"}, {"stroke-width", "2.2"}, {"fill", "none"}};
    if (k > 0) line.push_back({"stroke-dasharray", kRoofDashes[k % 4]});
    const double ridge = r.Ridge();
    std::vector<std::pair<double, double>> pts;
    if (r.bandwidth > 0) {
      const double x_start = std::max(xd.lo, yd.lo / r.bandwidth);
      if (x_start < std::min(ridge, xd.hi)) {
        pts.push_back({sx(x_start), sy(x_start * r.bandwidth)});
      }
    }
    const double x_flat = r.bandwidth > 0 ? std::clamp(ridge, xd.lo, xd.hi) : xd.lo;
    pts.push_back({sx(x_flat), sy(r.bandwidth > 0 ? Attainable(r, x_flat) : r.peak_flops)});
    if (x_flat < xd.hi) pts.push_back({sx(xd.hi), sy(r.peak_flops)});
    svg.Polyline(pts, line);
    // Labels must not cross a roof: reserve its path.
    for (size_t i = 0; i + 1 < pts.size(); ++i) {
      const double dx = pts[i + 1].first - pts[i].first, dy = pts[i + 1].second - pts[i].second;
      const int steps = std::max(1, static_cast<int>(std::hypot(dx, dy) / 5));
      for (int k = 0; k <= steps; ++k) {
        labels.AddObstacle(pts[i].first + dx * k / steps, pts[i].second + dy * k / steps, 2.5);
      }
    }
    // Compute roof label, at the right end above the line.
    const std::string peak_text =
        absl::StrCat(r.dtype.empty() ? "" : r.dtype + " ", "peak ", FormatSi(r.peak_flops, "FLOP/s"));
    const double ly = sy(r.peak_flops) - 6;
    svg.Text(plot.right() - 6, ly, peak_text, WithHalo({{"font-size", "12"}, {"font-weight", "bold"}, {"fill", "#1f2933"}}), "end");
    labels.AddBox({plot.right() - 6 - TextWidth(peak_text, 12), ly - 12, plot.right() - 6, ly + 2});
    if (r.bandwidth > 0 && k == 0) {
      // Bandwidth label along the slope, just above it, where no point is under the text:
      // the first free spot from the slope's lower end.
      const double x_start = std::max(xd.lo, yd.lo / r.bandwidth);
      const double l0 = std::log10(x_start), l1 = std::log10(std::min(ridge, xd.hi));
      // The slope rises one decade per decade: its on-screen angle (y grows downwards).
      const double angle = std::atan2(sy.PixelsPerDecade(), sx.PixelsPerDecade()) * 180 / M_PI;
      const double ux = std::cos(angle * M_PI / 180), uy = std::sin(angle * M_PI / 180);
      const double nx = uy, ny = -ux;  // unit normal, pointing above the slope
      const std::string bw_text = absl::StrCat("memory ", FormatSi(r.bandwidth, "B/s"));
      const double half = TextWidth(bw_text, 12) / 2;
      // Candidate spots as fractions of the slope's visible length; the last is the fallback.
      const std::vector<double> spots = {0.12, 0.22, 0.32, 0.45, 0.58, 0.7};
      double px = 0, py = 0;
      auto at = [&](double f) {
        const double xv = std::pow(10.0, l0 + f * (l1 - l0));
        px = sx(xv) + 8 * nx;
        py = sy(xv * r.bandwidth) + 8 * ny;
      };
      auto free_here = [&]() {
        const bool inside = px - half * ux > plot.x + 4 && px + half * ux < plot.right() - 4 &&
                            py - half * uy < plot.bottom() - 4 && py + half * uy > plot.y + 16;
        if (!inside) return false;
        for (const RooflinePoint& p : chart.points) {
          const double dx = p.px - px, dy = p.py - py;
          const double along = dx * ux + dy * uy, up = dx * nx + dy * ny;
          if (std::fabs(along) < half + 8 && up > -kPointRadius - 3 && up < 14 + kPointRadius) return false;
        }
        return true;
      };
      bool found = false;
      for (double f : spots) {
        at(f);
        if ((found = free_here())) break;
      }
      if (!found) at(0.45);
      // Reserve the rotated text's area for the point labels placed later.
      for (double t = -half; t <= half; t += 5) {
        labels.AddObstacle(px + t * ux + 5 * nx, py + t * uy + 5 * ny, 6);
      }
      svg.Text(px, py, bw_text,
               WithHalo({{"font-size", "12"}, {"font-weight", "bold"}, {"fill", "#1f2933"},
                         {"transform", absl::StrFormat("rotate(%.2f %s %s)", angle, Coord(px), Coord(py))}}),
               "middle");
      // Ridge point: dashed drop line to the x axis, a hollow marker and its value.
      if (ridge > xd.lo && ridge < xd.hi) {
        const double rx = sx(ridge), ry = sy(r.peak_flops);
        svg.Line(rx, ry, rx, plot.bottom(), {{"stroke", "#1f2933"}, {"stroke-width", "1.2"}, {"stroke-dasharray", "4 4"}});
        svg.Circle(rx, ry, 4.5, {{"fill", "#ffffff"}, {"stroke", "#1f2933"}, {"stroke-width", "2"}, {"class", "ridge"}},
                   absl::StrFormat("ridge point: %.3g FLOP/byte", ridge));
        const std::string ridge_text = absl::StrFormat("ridge %.3g FLOP/B", ridge);
        svg.Text(rx + 6, plot.bottom() - 8, ridge_text, WithHalo({{"font-size", "11.5"}, {"fill", "#1f2933"}}));
        labels.AddBox({rx + 6, plot.bottom() - 20, rx + 6 + TextWidth(ridge_text, 11.5), plot.bottom() - 4});
        labels.AddObstacle(rx, ry, 6);
      }
    }
  }
  svg.EndGroup();

  // Cases without bytes: a triangle just outside the right edge at their FLOP/s, pointing at
  // the plot; named in the legend (inline labels would crowd the compute-bound corner).
  svg.BeginGroup({{"class", "no-bytes"}});
  for (const Marker& m : markers) {
    const double y = sy(m.flops);
    if (!std::isfinite(y)) continue;
    const double x = plot.right() + 1;
    svg.BeginGroup();
    svg.Polygon({{x, y}, {x + 11, y - 6}, {x + 11, y + 6}},
                {{"fill", m.colour}, {"stroke", "#ffffff"}, {"stroke-width", "1"}});
    svg.Line(plot.right() - 14, y, plot.right(), y, {{"stroke", m.colour}, {"stroke-width", "2"}});
    svg.EndGroup();
    const Roof* r = RoofFor(roofs, m.case_name);
    if (r != nullptr && m.flops > r->peak_flops * (1 + kRoofTolerance)) {
      chart.notes.push_back(absl::StrCat(StripRunSuffixes(m.case_name), ": ", FormatSi(m.flops, "FLOP/s"),
                                         " is above the compute roof (", FormatSi(r->peak_flops, "FLOP/s"),
                                         "): a counting error, or the peak is too low"));
    }
  }
  svg.EndGroup();

  // Points, in a stable order: by family, then intensity.
  std::stable_sort(chart.points.begin(), chart.points.end(), [](const RooflinePoint& a, const RooflinePoint& b) {
    return a.family != b.family ? a.family < b.family : a.intensity < b.intensity;
  });
  for (const RooflinePoint& p : chart.points) labels.AddObstacle(p.px, p.py, kPointRadius + 1);
  svg.BeginGroup({{"class", "points"}});
  for (const RooflinePoint& p : chart.points) {
    std::string tip = absl::StrCat(StripRunSuffixes(p.case_name), "\n", FormatSi(p.flops, "FLOP/s"), " at ",
                                   absl::StrFormat("%.3g", p.intensity), " FLOP/byte");
    if (p.attainable > 0) {
      absl::StrAppend(&tip, absl::StrFormat("\n%.1f%% of the roof above it (%s)", 100 * p.flops / p.attainable,
                                            FormatSi(p.attainable, "FLOP/s")));
    }
    svg.Circle(p.px, p.py, kPointRadius,
               {{"fill", p.colour}, {"stroke", "#ffffff"}, {"stroke-width", "1.2"}, {"class", "point"},
                {"data-case", StripRunSuffixes(p.case_name)}, {"data-x", absl::StrFormat("%.17g", p.intensity)},
                {"data-y", absl::StrFormat("%.17g", p.flops)}},
               tip);
  }
  svg.EndGroup();

  // Counting-error flags.
  svg.BeginGroup({{"class", "above-roof"}});
  for (const RooflinePoint& p : chart.points) {
    if (!p.above_roof) continue;
    svg.Circle(p.px, p.py, 10, {{"fill", "none"}, {"stroke", kAlert}, {"stroke-width", "2.2"}});
    const std::string text = absl::StrFormat("%s: %.0f%% above the roof: counting error?", p.label,
                                             100 * (p.flops / p.attainable - 1));
    if (auto spot = labels.Place(p.px, p.py, 11, text)) {
      svg.Text(spot->x, spot->y, text, WithHalo({{"font-size", "11"}, {"font-weight", "bold"}, {"fill", kAlert}}),
               spot->anchor);
    }
    chart.notes.push_back(absl::StrCat(
        StripRunSuffixes(p.case_name), ": ", FormatSi(p.flops, "FLOP/s"), " at ",
        absl::StrFormat("%.3g", p.intensity), " FLOP/byte is ",
        absl::StrFormat("%.0f%%", 100 * (p.flops / p.attainable - 1)), " above the roof (",
        FormatSi(p.attainable, "FLOP/s"),
        "): impossible against this roof. FLOPs over-counted, bytes under-counted, the peak or "
        "bandwidth measured too low, or the data came from cache, which the memory roof does not "
        "bound (a working set larger than the last-level cache keeps it honest)"));
  }
  svg.EndGroup();

  // Labels for the other points, where they fit.
  svg.BeginGroup(WithHalo({{"class", "labels"}, {"font-size", "11"}, {"fill", kInk}}));
  int unlabelled = 0;
  for (const RooflinePoint& p : chart.points) {
    if (p.above_roof) continue;
    if (auto spot = labels.Place(p.px, p.py, kPointRadius, p.label)) {
      svg.Text(spot->x, spot->y, p.label, {}, spot->anchor);
    } else {
      ++unlabelled;
    }
  }
  svg.EndGroup();

  // Legend, right of the plot.
  double lx = plot.right() + 26, ly = plot.y + 8;
  svg.Text(lx, ly, "Op family", {{"font-size", "12"}, {"font-weight", "bold"}, {"fill", kInk}});
  ly += 20;
  std::vector<std::string> families;
  for (const RooflinePoint& p : chart.points) families.push_back(p.family);
  for (const Marker& m : markers) families.push_back(m.family);
  for (const std::string& f : FamilyOrder(families)) {
    int n = 0;
    for (const RooflinePoint& p : chart.points) n += p.family == f;
    for (const Marker& m : markers) n += m.family == f;
    DrawLegendEntry(&svg, lx, ly, ColourOf(colours, f), absl::StrCat(f, " (", n, ")"));
    ly += 19;
  }
  ly += 10;
  for (size_t k = 0; k < roofs.roofs.size() && k < 4; ++k) {
    const Roof& r = roofs.roofs[k];
    DrawLegendEntry(&svg, lx, ly, "#1f2933",
                    absl::StrCat("roof", r.dtype.empty() ? "" : " " + r.dtype, ": ", r.kind), true,
                    kRoofDashes[k % 4]);
    ly += 19;
  }
  if (!roofs.roofs.empty() && roofs.roofs[0].bandwidth > 0) {
    svg.Circle(lx + 9, ly, 4.5, {{"fill", "#ffffff"}, {"stroke", "#1f2933"}, {"stroke-width", "2"}});
    svg.Text(lx + 24, ly + 4, "ridge point (peak / bandwidth)", {{"font-size", "11.5"}, {"fill", kInk}});
    ly += 19;
  }
  svg.Circle(lx + 9, ly, 8, {{"fill", "none"}, {"stroke", kAlert}, {"stroke-width", "2"}});
  svg.Text(lx + 24, ly + 4, "above the roof: counting error?", {{"font-size", "11.5"}, {"fill", kInk}});
  ly += 19;
  if (!markers.empty()) {
    ly += 8;
    svg.Text(lx, ly, "Without bytes (right edge)", {{"font-size", "12"}, {"font-weight", "bold"}, {"fill", kInk}});
    ly += 18;
    std::vector<Marker> sorted = markers;
    std::sort(sorted.begin(), sorted.end(), [](const Marker& a, const Marker& b) { return a.flops > b.flops; });
    for (size_t k = 0; k < sorted.size() && k < 6; ++k) {
      const Marker& m = sorted[k];
      svg.Polygon({{lx + 4, ly}, {lx + 14, ly - 6}, {lx + 14, ly + 6}}, {{"fill", m.colour}});
      svg.Text(lx + 24, ly + 4, absl::StrCat(m.label, ": ", FormatSi(m.flops, "FLOP/s")),
               {{"font-size", "11.5"}, {"fill", kInk}});
      ly += 18;
    }
    if (sorted.size() > 6) {
      svg.Text(lx + 24, ly + 4, absl::StrCat("and ", sorted.size() - 6, " more (see the table)"),
               {{"font-size", "11"}, {"fill", kMutedInk}});
      ly += 18;
    }
  }
  if (unlabelled > 0) {
    ly += 6;
    for (const std::string& line : WrapText(absl::StrCat(unlabelled, " point labels left off where they would overlap; hover a point for its case"), 34)) {
      svg.Text(lx, ly, line, {{"font-size", "11"}, {"fill", kMutedInk}});
      ly += 14;
    }
  }
  if (chart.points.empty()) {
    svg.Text(plot.x + plot.w / 2, plot.y + plot.h / 2, "no case has both FLOP/s and bytes/s: nothing to place",
             {{"font-size", "14"}, {"fill", kMutedInk}}, "middle");
    chart.notes.push_back("No case has both FLOP/s and bytes/s: the roofline has no points.");
  }
  chart.svg = svg.Finish();
  return chart;
}

}  // namespace report
