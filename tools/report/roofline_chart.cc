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

// A case with FLOP/s but no bytes: drawn at the right edge, named in the legend.
struct Marker {
  std::string case_name, label, family, colour;
  double flops;
};

// The plot area and its log scales.
struct Axes {
  PlotRect plot;
  Domain xd, yd;
  LogScale sx, sy;
};

// Every case with a finite positive intensity and FLOP/s as a point (checked against its roof);
// cases with FLOP/s and no bytes as markers.
void CollectPoints(const RunData& data, const RoofChoice& roofs, const std::map<std::string, std::string>& colours,
                   RooflineChart* chart, std::vector<Marker>* markers) {
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
      chart->points.push_back(p);
    } else if (f && *f > 0 && !c.BytesPerSecond()) {
      markers->push_back({c.name, ShortLabel(c.name), c.family, ColourOf(colours, c.family), *f});
    }
  }
}

// Domains over the points, markers, ridges and roofs.
Axes MakeAxes(const RooflineChart& chart, const std::vector<Marker>& markers, const RoofChoice& roofs) {
  std::vector<double> xs, ys;
  for (const RooflinePoint& p : chart.points) xs.push_back(p.intensity), ys.push_back(p.flops);
  for (const Marker& m : markers) ys.push_back(m.flops);
  for (const Roof& r : roofs.roofs) {
    ys.push_back(r.peak_flops * 1.6);  // room above the roof for its label
    if (r.Ridge() > 0) xs.push_back(r.Ridge());
  }
  const Domain xd = NiceLogDomain(xs, 3);
  const Domain yd = NiceLogDomain(ys, 3);
  const PlotRect plot{92, 92, kWidth - 92 - 250, kHeight - 92 - 58};
  return Axes{plot, xd, yd, LogScale(xd.lo, xd.hi, plot.x, plot.right()), LogScale(yd.lo, yd.hi, plot.bottom(), plot.y)};
}

// One roof's line: the slope up to the ridge, then the flat compute roof (pixels).
std::vector<std::pair<double, double>> RoofPath(const Roof& r, const Axes& ax) {
  std::vector<std::pair<double, double>> pts;
  const double ridge = r.Ridge();
  if (r.bandwidth > 0) {
    const double x_start = std::max(ax.xd.lo, ax.yd.lo / r.bandwidth);
    if (x_start < std::min(ridge, ax.xd.hi)) pts.push_back({ax.sx(x_start), ax.sy(x_start * r.bandwidth)});
  }
  const double x_flat = r.bandwidth > 0 ? std::clamp(ridge, ax.xd.lo, ax.xd.hi) : ax.xd.lo;
  pts.push_back({ax.sx(x_flat), ax.sy(r.bandwidth > 0 ? Attainable(r, x_flat) : r.peak_flops)});
  if (x_flat < ax.xd.hi) pts.push_back({ax.sx(ax.xd.hi), ax.sy(r.peak_flops)});
  return pts;
}

// Labels must not cross a roof: reserve its path.
void ReservePath(const std::vector<std::pair<double, double>>& pts, LabelLayout* labels) {
  for (size_t i = 0; i + 1 < pts.size(); ++i) {
    const double dx = pts[i + 1].first - pts[i].first, dy = pts[i + 1].second - pts[i].second;
    const int steps = std::max(1, static_cast<int>(std::hypot(dx, dy) / 5));
    for (int k = 0; k <= steps; ++k) {
      labels->AddObstacle(pts[i].first + dx * k / steps, pts[i].second + dy * k / steps, 2.5);
    }
  }
}

// The bandwidth label along the slope, just above it, at the first spot from the slope's lower
// end where no point is under the text.
void DrawBandwidthLabel(const Roof& r, const Axes& ax, const std::vector<RooflinePoint>& points, SvgWriter* svg,
                        LabelLayout* labels) {
  const PlotRect& plot = ax.plot;
  const double x_start = std::max(ax.xd.lo, ax.yd.lo / r.bandwidth);
  const double l0 = std::log10(x_start), l1 = std::log10(std::min(r.Ridge(), ax.xd.hi));
  // The slope rises one decade per decade: its on-screen angle (y grows downwards).
  const double angle = std::atan2(ax.sy.PixelsPerDecade(), ax.sx.PixelsPerDecade()) * 180 / M_PI;
  const double ux = std::cos(angle * M_PI / 180), uy = std::sin(angle * M_PI / 180);
  const double nx = uy, ny = -ux;  // unit normal, pointing above the slope
  const std::string bw_text = absl::StrCat("memory ", FormatSi(r.bandwidth, "B/s"));
  const double half = TextWidth(bw_text, 12) / 2;
  // Candidate spots as fractions of the slope's visible length; the last is the fallback.
  const std::vector<double> spots = {0.12, 0.22, 0.32, 0.45, 0.58, 0.7};
  double px = 0, py = 0;
  auto at = [&](double f) {
    const double xv = std::pow(10.0, l0 + f * (l1 - l0));
    px = ax.sx(xv) + 8 * nx;
    py = ax.sy(xv * r.bandwidth) + 8 * ny;
  };
  auto free_here = [&]() {
    const bool inside = px - half * ux > plot.x + 4 && px + half * ux < plot.right() - 4 &&
                        py - half * uy < plot.bottom() - 4 && py + half * uy > plot.y + 16;
    if (!inside) return false;
    for (const RooflinePoint& p : points) {
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
  for (double t = -half; t <= half; t += 5) labels->AddObstacle(px + t * ux + 5 * nx, py + t * uy + 5 * ny, 6);
  svg->Text(px, py, bw_text,
            WithHalo({{"font-size", "12"}, {"font-weight", "bold"}, {"fill", "#1f2933"},
                      {"transform", absl::StrFormat("rotate(%.2f %s %s)", angle, Coord(px), Coord(py))}}),
            "middle");
}

// Ridge point: dashed drop line to the x axis, a hollow marker and its value.
void DrawRidge(const Roof& r, const Axes& ax, SvgWriter* svg, LabelLayout* labels) {
  const double ridge = r.Ridge();
  if (!(ridge > ax.xd.lo && ridge < ax.xd.hi)) return;
  const double rx = ax.sx(ridge), ry = ax.sy(r.peak_flops), bottom = ax.plot.bottom();
  svg->Line(rx, ry, rx, bottom, {{"stroke", "#1f2933"}, {"stroke-width", "1.2"}, {"stroke-dasharray", "4 4"}});
  svg->Circle(rx, ry, 4.5, {{"fill", "#ffffff"}, {"stroke", "#1f2933"}, {"stroke-width", "2"}, {"class", "ridge"}},
              absl::StrFormat("ridge point: %.3g FLOP/byte", ridge));
  const std::string ridge_text = absl::StrFormat("ridge %.3g FLOP/B", ridge);
  svg->Text(rx + 6, bottom - 8, ridge_text, WithHalo({{"font-size", "11.5"}, {"fill", "#1f2933"}}));
  labels->AddBox({rx + 6, bottom - 20, rx + 6 + TextWidth(ridge_text, 11.5), bottom - 4});
  labels->AddObstacle(rx, ry, 6);
}

// Every roof with its peak label; the first one's bandwidth label and ridge point.
void DrawRoofs(const RoofChoice& roofs, const Axes& ax, const std::vector<RooflinePoint>& points, SvgWriter* svg,
               LabelLayout* labels) {
  svg->BeginGroup({{"class", "roofs"}});
  for (size_t k = 0; k < roofs.roofs.size(); ++k) {
    const Roof& r = roofs.roofs[k];
    Attrs line = {{"stroke", "#1f2933"}, {"stroke-width", "2.2"}, {"fill", "none"}};
    if (k > 0) line.push_back({"stroke-dasharray", kRoofDashes[k % 4]});
    const std::vector<std::pair<double, double>> pts = RoofPath(r, ax);
    svg->Polyline(pts, line);
    ReservePath(pts, labels);
    // Compute roof label, at the right end above the line.
    const std::string peak_text =
        absl::StrCat(r.dtype.empty() ? "" : r.dtype + " ", "peak ", FormatSi(r.peak_flops, "FLOP/s"));
    const double right = ax.plot.right(), ly = ax.sy(r.peak_flops) - 6;
    svg->Text(right - 6, ly, peak_text, WithHalo({{"font-size", "12"}, {"font-weight", "bold"}, {"fill", "#1f2933"}}),
              "end");
    labels->AddBox({right - 6 - TextWidth(peak_text, 12), ly - 12, right - 6, ly + 2});
    if (r.bandwidth > 0 && k == 0) {
      DrawBandwidthLabel(r, ax, points, svg, labels);
      DrawRidge(r, ax, svg, labels);
    }
  }
  svg->EndGroup();
}

// Cases without bytes: a triangle just outside the right edge at their FLOP/s, pointing at the
// plot; named in the legend (inline labels would crowd the compute-bound corner).
void DrawNoBytesMarkers(const std::vector<Marker>& markers, const RoofChoice& roofs, const Axes& ax, SvgWriter* svg,
                        std::vector<std::string>* notes) {
  svg->BeginGroup({{"class", "no-bytes"}});
  for (const Marker& m : markers) {
    const double y = ax.sy(m.flops);
    if (!std::isfinite(y)) continue;
    const double x = ax.plot.right() + 1;
    svg->BeginGroup();
    svg->Polygon({{x, y}, {x + 11, y - 6}, {x + 11, y + 6}}, {{"fill", m.colour}, {"stroke", "#ffffff"}, {"stroke-width", "1"}});
    svg->Line(ax.plot.right() - 14, y, ax.plot.right(), y, {{"stroke", m.colour}, {"stroke-width", "2"}});
    svg->EndGroup();
    const Roof* r = RoofFor(roofs, m.case_name);
    if (r != nullptr && m.flops > r->peak_flops * (1 + kRoofTolerance)) {
      notes->push_back(absl::StrCat(StripRunSuffixes(m.case_name), ": ", FormatSi(m.flops, "FLOP/s"),
                                    " is above the compute roof (", FormatSi(r->peak_flops, "FLOP/s"),
                                    "): a counting error, or the peak is too low"));
    }
  }
  svg->EndGroup();
}

// The points, in a stable order (by family, then intensity), with their hover text.
void DrawPoints(std::vector<RooflinePoint>* points, SvgWriter* svg, LabelLayout* labels) {
  std::stable_sort(points->begin(), points->end(), [](const RooflinePoint& a, const RooflinePoint& b) {
    return a.family != b.family ? a.family < b.family : a.intensity < b.intensity;
  });
  for (const RooflinePoint& p : *points) labels->AddObstacle(p.px, p.py, kPointRadius + 1);
  svg->BeginGroup({{"class", "points"}});
  for (const RooflinePoint& p : *points) {
    std::string tip = absl::StrCat(StripRunSuffixes(p.case_name), "\n", FormatSi(p.flops, "FLOP/s"), " at ",
                                   absl::StrFormat("%.3g", p.intensity), " FLOP/byte");
    if (p.attainable > 0) {
      absl::StrAppend(&tip, absl::StrFormat("\n%.1f%% of the roof above it (%s)", 100 * p.flops / p.attainable,
                                            FormatSi(p.attainable, "FLOP/s")));
    }
    svg->Circle(p.px, p.py, kPointRadius,
                {{"fill", p.colour}, {"stroke", "#ffffff"}, {"stroke-width", "1.2"}, {"class", "point"},
                 {"data-case", StripRunSuffixes(p.case_name)}, {"data-x", absl::StrFormat("%.17g", p.intensity)},
                 {"data-y", absl::StrFormat("%.17g", p.flops)}},
                tip);
  }
  svg->EndGroup();
}

// Counting-error flags: a ring, a label and a note for every point above its roof.
void DrawAboveRoofFlags(const std::vector<RooflinePoint>& points, SvgWriter* svg, LabelLayout* labels,
                        std::vector<std::string>* notes) {
  svg->BeginGroup({{"class", "above-roof"}});
  for (const RooflinePoint& p : points) {
    if (!p.above_roof) continue;
    svg->Circle(p.px, p.py, 10, {{"fill", "none"}, {"stroke", kAlert}, {"stroke-width", "2.2"}});
    const std::string text = absl::StrFormat("%s: %.0f%% above the roof: counting error?", p.label,
                                             100 * (p.flops / p.attainable - 1));
    if (auto spot = labels->Place(p.px, p.py, 11, text)) {
      svg->Text(spot->x, spot->y, text, WithHalo({{"font-size", "11"}, {"font-weight", "bold"}, {"fill", kAlert}}),
                spot->anchor);
    }
    notes->push_back(absl::StrCat(
        StripRunSuffixes(p.case_name), ": ", FormatSi(p.flops, "FLOP/s"), " at ",
        absl::StrFormat("%.3g", p.intensity), " FLOP/byte is ",
        absl::StrFormat("%.0f%%", 100 * (p.flops / p.attainable - 1)), " above the roof (",
        FormatSi(p.attainable, "FLOP/s"),
        "): impossible against this roof. FLOPs over-counted, bytes under-counted, the peak or "
        "bandwidth measured too low, or the data came from cache, which the memory roof does not "
        "bound (a working set larger than the last-level cache keeps it honest)"));
  }
  svg->EndGroup();
}

// Labels for the other points, where they fit; returns how many were left off.
int DrawPointLabels(const std::vector<RooflinePoint>& points, SvgWriter* svg, LabelLayout* labels) {
  svg->BeginGroup(WithHalo({{"class", "labels"}, {"font-size", "11"}, {"fill", kInk}}));
  int unlabelled = 0;
  for (const RooflinePoint& p : points) {
    if (p.above_roof) continue;
    if (auto spot = labels->Place(p.px, p.py, kPointRadius, p.label)) {
      svg->Text(spot->x, spot->y, p.label, {}, spot->anchor);
    } else {
      ++unlabelled;
    }
  }
  svg->EndGroup();
  return unlabelled;
}

// Legend: the op families with their counts, the roofs, the ridge and counting-error symbols.
// Returns the y below it.
double DrawLegendKeys(const RooflineChart& chart, const std::vector<Marker>& markers, const RoofChoice& roofs,
                      const std::map<std::string, std::string>& colours, double lx, double ly, SvgWriter* svg) {
  svg->Text(lx, ly, "Op family", {{"font-size", "12"}, {"font-weight", "bold"}, {"fill", kInk}});
  ly += 20;
  std::vector<std::string> families;
  for (const RooflinePoint& p : chart.points) families.push_back(p.family);
  for (const Marker& m : markers) families.push_back(m.family);
  for (const std::string& f : FamilyOrder(families)) {
    int n = 0;
    for (const RooflinePoint& p : chart.points) n += p.family == f;
    for (const Marker& m : markers) n += m.family == f;
    DrawLegendEntry(svg, lx, ly, ColourOf(colours, f), absl::StrCat(f, " (", n, ")"));
    ly += 19;
  }
  ly += 10;
  for (size_t k = 0; k < roofs.roofs.size() && k < 4; ++k) {
    const Roof& r = roofs.roofs[k];
    DrawLegendEntry(svg, lx, ly, "#1f2933", absl::StrCat("roof", r.dtype.empty() ? "" : " " + r.dtype, ": ", r.kind),
                    true, kRoofDashes[k % 4]);
    ly += 19;
  }
  if (!roofs.roofs.empty() && roofs.roofs[0].bandwidth > 0) {
    svg->Circle(lx + 9, ly, 4.5, {{"fill", "#ffffff"}, {"stroke", "#1f2933"}, {"stroke-width", "2"}});
    svg->Text(lx + 24, ly + 4, "ridge point (peak / bandwidth)", {{"font-size", "11.5"}, {"fill", kInk}});
    ly += 19;
  }
  svg->Circle(lx + 9, ly, 8, {{"fill", "none"}, {"stroke", kAlert}, {"stroke-width", "2"}});
  svg->Text(lx + 24, ly + 4, "above the roof: counting error?", {{"font-size", "11.5"}, {"fill", kInk}});
  return ly + 19;
}

// Legend: the cases without bytes, the fastest six. Returns the y below it.
double DrawLegendMarkers(const std::vector<Marker>& markers, double lx, double ly, SvgWriter* svg) {
  if (markers.empty()) return ly;
  ly += 8;
  svg->Text(lx, ly, "Without bytes (right edge)", {{"font-size", "12"}, {"font-weight", "bold"}, {"fill", kInk}});
  ly += 18;
  std::vector<Marker> sorted = markers;
  std::sort(sorted.begin(), sorted.end(), [](const Marker& a, const Marker& b) { return a.flops > b.flops; });
  for (size_t k = 0; k < sorted.size() && k < 6; ++k) {
    const Marker& m = sorted[k];
    svg->Polygon({{lx + 4, ly}, {lx + 14, ly - 6}, {lx + 14, ly + 6}}, {{"fill", m.colour}});
    svg->Text(lx + 24, ly + 4, absl::StrCat(m.label, ": ", FormatSi(m.flops, "FLOP/s")),
              {{"font-size", "11.5"}, {"fill", kInk}});
    ly += 18;
  }
  if (sorted.size() > 6) {
    svg->Text(lx + 24, ly + 4, absl::StrCat("and ", sorted.size() - 6, " more (see the table)"),
              {{"font-size", "11"}, {"fill", kMutedInk}});
    ly += 18;
  }
  return ly;
}

}  // namespace

RooflineChart DrawRoofline(const RunData& data, const RoofChoice& roofs,
                           const std::map<std::string, std::string>& colours,
                           const std::string& machine) {
  RooflineChart chart;
  std::vector<Marker> markers;
  CollectPoints(data, roofs, colours, &chart, &markers);
  const Axes ax = MakeAxes(chart, markers, roofs);
  const PlotRect& plot = ax.plot;

  SvgWriter svg(kWidth, kHeight, ChartRootAttrs(plot, ax.xd.lo, ax.xd.hi, ax.yd.lo, ax.yd.hi, "roofline"));
  svg.Rect(0, 0, kWidth, kHeight, {{"fill", "#ffffff"}});
  std::vector<std::string> subtitle = WrapText(roofs.summary, 150);
  if (subtitle.size() > 3) subtitle.resize(3);
  DrawTitle(&svg, 16, 26, machine.empty() ? "Roofline" : absl::StrCat("Roofline: ", machine), subtitle);
  DrawPlotBackground(&svg, plot);
  DrawLogGrid(&svg, plot, ax.sx, true);
  DrawLogGrid(&svg, plot, ax.sy, false);
  DrawFrameAndAxisTitles(&svg, plot, "Arithmetic intensity (FLOP/byte)", "Performance (FLOP/s)");

  LabelLayout labels(plot, 11);
  for (RooflinePoint& p : chart.points) {
    p.px = ax.sx(p.intensity);
    p.py = ax.sy(p.flops);
  }
  DrawRoofs(roofs, ax, chart.points, &svg, &labels);
  DrawNoBytesMarkers(markers, roofs, ax, &svg, &chart.notes);
  DrawPoints(&chart.points, &svg, &labels);
  DrawAboveRoofFlags(chart.points, &svg, &labels, &chart.notes);
  const int unlabelled = DrawPointLabels(chart.points, &svg, &labels);

  // Legend, right of the plot.
  const double lx = plot.right() + 26;
  double ly = DrawLegendKeys(chart, markers, roofs, colours, lx, plot.y + 8, &svg);
  ly = DrawLegendMarkers(markers, lx, ly, &svg);
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
