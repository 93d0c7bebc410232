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
#include "tools/report/point_roof.h"
#include "tools/report/roofline_memory.h"
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

constexpr double kWidth = 980, kHeight = 600, kPlotHeight = 450;
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

using Axes = RooflineAxes;

// Every case with a finite positive intensity and FLOP/s as a point (checked against its roof);
// cases with FLOP/s and no bytes as markers.
void CollectPoints(const RunData& data, const RoofChoice& roofs,
                   const std::map<std::string, std::string>& colours, RooflineChart* chart,
                   std::vector<Marker>* markers) {
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
      if (auto roof = PointRoofFor(roofs, c, p.intensity)) {
        p.attainable = roof->attainable;
        p.above_roof = p.flops > p.attainable * (1 + kRoofTolerance);
        p.memory_roof = roof->memory;
        p.roof_label = roof->MemoryLabel();
        p.compute_bound = roof->compute_bound();
      }
      p.working_set_bytes = c.Counter("working_set_bytes").value_or(0);
      chart->points.push_back(p);
    } else if (f && *f > 0 && !c.BytesPerSecond()) {
      markers->push_back({c.name, ShortLabel(c.name), c.family, ColourOf(colours, c.family), *f});
    }
  }
}

// Domains over the points, markers, ridges and roofs (where each memory roof meets the highest
// compute roof too); the plot's top at `plot_y`.
Axes MakeAxes(const RooflineChart& chart, const std::vector<Marker>& markers, const RoofChoice& roofs,
              double plot_y) {
  std::vector<double> xs, ys;
  for (const RooflinePoint& p : chart.points) xs.push_back(p.intensity), ys.push_back(p.flops);
  for (const Marker& m : markers) ys.push_back(m.flops);
  for (const Roof& r : roofs.roofs) {
    ys.push_back(r.peak_flops * 1.6);  // room above the roof for its label
    if (r.Ridge() > 0) xs.push_back(r.Ridge());
  }
  if (!roofs.roofs.empty()) {
    for (const MemorySlope& s : roofs.memory.slopes) xs.push_back(roofs.roofs[0].peak_flops / s.bytes_per_s);
  }
  const Domain xd = NiceLogDomain(xs, 3);
  const Domain yd = NiceLogDomain(ys, 3);
  const PlotRect plot{92, plot_y, kWidth - 92 - 250, kPlotHeight};
  return Axes{plot, xd, yd, LogScale(xd.lo, xd.hi, plot.x, plot.right()),
              LogScale(yd.lo, yd.hi, plot.bottom(), plot.y)};
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
      labels->AddLineObstacle(pts[i].first + dx * k / steps, pts[i].second + dy * k / steps, 2.5);
    }
  }
}

// The bandwidth label along the slope, just above it, at the first spot from the slope's lower
// end where no point is under the text.
void DrawBandwidthLabel(const Roof& r, const Axes& ax, const std::vector<RooflinePoint>& points,
                        SvgWriter* svg, LabelLayout* labels) {
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
  for (double t = -half; t <= half; t += 5)
    labels->AddObstacle(px + t * ux + 5 * nx, py + t * uy + 5 * ny, 6);
  svg->Text(px, py, bw_text,
            WithHalo({{"font-size", "12"},
                      {"font-weight", "bold"},
                      {"fill", "#1f2933"},
                      {"transform", absl::StrFormat("rotate(%.2f %s %s)", angle, Coord(px), Coord(py))}}),
            "middle");
}

// Ridge point: dashed drop line to the x axis, a hollow marker and its value.
void DrawRidge(const Roof& r, const Axes& ax, bool per_kind, SvgWriter* svg, LabelLayout* labels) {
  const double ridge = r.Ridge();
  if (!(ridge > ax.xd.lo && ridge < ax.xd.hi)) return;
  const double rx = ax.sx(ridge), ry = ax.sy(r.peak_flops), bottom = ax.plot.bottom();
  svg->Line(rx, ry, rx, bottom,
            {{"stroke", "#1f2933"}, {"stroke-width", "1.2"}, {"stroke-dasharray", "4 4"}});
  svg->Circle(rx, ry, 4.5,
              {{"fill", "#ffffff"}, {"stroke", "#1f2933"}, {"stroke-width", "2"}, {"class", "ridge"}},
              absl::StrFormat("ridge point: %.3g FLOP/byte", ridge));
  const std::string ridge_text =
      absl::StrFormat("ridge %.3g FLOP/B%s", ridge, per_kind ? " (single slope)" : "");
  svg->Text(rx + 6, bottom - 8, ridge_text, WithHalo({{"font-size", "11.5"}, {"fill", "#1f2933"}}));
  labels->AddBox({rx + 6, bottom - 20, rx + 6 + TextWidth(ridge_text, 11.5), bottom - 4});
  labels->AddObstacle(rx, ry, 6);
}

// Every roof with its peak label; the first one's bandwidth label and ridge point.
void DrawRoofs(const RoofChoice& roofs, const Axes& ax, const std::vector<RooflinePoint>& points,
               SvgWriter* svg, LabelLayout* labels) {
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
    svg->Text(right - 6, ly, peak_text,
              WithHalo({{"font-size", "12"}, {"font-weight", "bold"}, {"fill", "#1f2933"}}), "end");
    labels->AddBox({right - 6 - TextWidth(peak_text, 12), ly - 12, right - 6, ly + 2});
    if (r.bandwidth > 0 && k == 0) {
      // Beside the roofs per kind, the single slope is labelled with them (roofline_memory.h).
      const bool per_kind = !roofs.memory.slopes.empty();
      if (!per_kind) DrawBandwidthLabel(r, ax, points, svg, labels);
      DrawRidge(r, ax, per_kind, svg, labels);
    }
  }
  svg->EndGroup();
}

// Cases without bytes: a triangle just outside the right edge at their FLOP/s, pointing at the
// plot; named in the legend (inline labels would crowd the compute-bound corner).
void DrawNoBytesMarkers(const std::vector<Marker>& markers, const RoofChoice& roofs, const Axes& ax,
                        SvgWriter* svg, std::vector<std::string>* notes) {
  svg->BeginGroup({{"class", "no-bytes"}});
  for (const Marker& m : markers) {
    const double y = ax.sy(m.flops);
    if (!std::isfinite(y)) continue;
    const double x = ax.plot.right() + 1;
    svg->BeginGroup();
    svg->Polygon({{x, y}, {x + 11, y - 6}, {x + 11, y + 6}},
                 {{"fill", m.colour}, {"stroke", "#ffffff"}, {"stroke-width", "1"}});
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

// The hover text of a point: its case, where it is, the roof it is held to and its % of it.
std::string PointTip(const RooflinePoint& p) {
  std::string tip = absl::StrCat(StripRunSuffixes(p.case_name), "\n", FormatSi(p.flops, "FLOP/s"), " at ",
                                 absl::StrFormat("%.3g", p.intensity), " FLOP/byte");
  if (!(p.attainable > 0)) return tip;
  const std::string roof = p.compute_bound || p.roof_label.empty() ? std::string("the compute peak")
                           : p.memory_roof ? absl::StrCat(p.roof_label, " (the roof of its traffic kind)")
                                           : absl::StrCat(p.roof_label, " (no traffic counters)");
  absl::StrAppend(&tip, "\nheld to ", roof,
                  absl::StrFormat(": %.1f%% of its roof here (%s)", 100 * p.flops / p.attainable,
                                  FormatSi(p.attainable, "FLOP/s")));
  return tip;
}

// The points, in a stable order (by family, then intensity), with their hover text.
void DrawPoints(std::vector<RooflinePoint>* points, SvgWriter* svg) {
  std::stable_sort(points->begin(), points->end(), [](const RooflinePoint& a, const RooflinePoint& b) {
    return a.family != b.family ? a.family < b.family : a.intensity < b.intensity;
  });
  svg->BeginGroup({{"class", "points"}});
  for (const RooflinePoint& p : *points) {
    svg->Circle(p.px, p.py, kPointRadius,
                {{"fill", p.colour},
                 {"stroke", "#ffffff"},
                 {"stroke-width", "1.2"},
                 {"class", "point"},
                 {"data-case", StripRunSuffixes(p.case_name)},
                 {"data-x", absl::StrFormat("%.17g", p.intensity)},
                 {"data-y", absl::StrFormat("%.17g", p.flops)},
                 {"data-roof", p.roof_label}},
                PointTip(p));
  }
  svg->EndGroup();
}

// Why a point above its roof may be: the causes a note lists.
std::string AboveRoofCauses(const RooflinePoint& p) {
  if (!p.memory_roof) {
    return "FLOPs over-counted, bytes under-counted, the peak or bandwidth measured too low, or the data "
           "came from cache, which the memory roof does not bound (a working set larger than the last-level "
           "cache keeps it honest)";
  }
  std::string causes =
      "FLOPs over-counted, bytes under-counted (or its traffic kind wrong), or its roof "
      "measured too low";
  if (p.memory_roof->level != "DRAM") return causes;
  if (!(p.working_set_bytes > 0)) {
    return causes +
           ", or the data came from a cache: the case does not say its working set "
           "(working_set_bytes), so it is held to DRAM";
  }
  return causes + absl::StrCat(", or its working set (", FormatSi(p.working_set_bytes, "B"),
                               ") was served from a cache: a --ceilings file with cache_levels holds it "
                               "to its level");
}

// Counting-error flags: a ring, a label and a note for every point above its roof.
void DrawAboveRoofFlags(const std::vector<RooflinePoint>& points, SvgWriter* svg, LabelLayout* labels,
                        std::vector<std::string>* notes) {
  svg->BeginGroup({{"class", "above-roof"}});
  for (const RooflinePoint& p : points) {
    if (!p.above_roof) continue;
    svg->Circle(p.px, p.py, 10, {{"fill", "none"}, {"stroke", kAlert}, {"stroke-width", "2.2"}});
    // The long flag where it fits, else a shorter one, else the point's name.
    const double pct = 100 * (p.flops / p.attainable - 1);
    const std::string roof =
        p.memory_roof ? absl::StrCat("its ", std::string(accounting::TrafficKindName(p.memory_roof->kind)),
                                     " ", p.memory_roof->level, " roof")
                      : "the roof";
    for (const std::string& text :
         {absl::StrFormat("%s: %.0f%% above %s: counting error?", p.label, pct, roof),
          absl::StrFormat("%s: %.0f%% above its roof?", p.label, pct), p.label}) {
      if (auto spot = labels->Place(p.px, p.py, 11, text)) {
        svg->Text(spot->x, spot->y, text,
                  WithHalo({{"font-size", "11"}, {"font-weight", "bold"}, {"fill", kAlert}}), spot->anchor);
        break;
      }
    }
    notes->push_back(absl::StrCat(StripRunSuffixes(p.case_name), ": ", FormatSi(p.flops, "FLOP/s"), " at ",
                                  absl::StrFormat("%.3g", p.intensity), " FLOP/byte is ",
                                  absl::StrFormat("%.0f%%", 100 * (p.flops / p.attainable - 1)), " above ",
                                  p.memory_roof ? "its own roof" : "the roof", " (",
                                  FormatSi(p.attainable, "FLOP/s"),
                                  p.roof_label.empty() ? "" : absl::StrCat(", ", p.roof_label),
                                  "): impossible against this roof. ", AboveRoofCauses(p)));
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
                      const std::map<std::string, std::string>& colours, double lx, double ly,
                      SvgWriter* svg) {
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
    DrawLegendEntry(svg, lx, ly, "#1f2933",
                    absl::StrCat("roof", r.dtype.empty() ? "" : " " + r.dtype, ": ", r.kind), true,
                    kRoofDashes[k % 4]);
    ly += 19;
  }
  if (!roofs.roofs.empty() && roofs.roofs[0].bandwidth > 0) {
    svg->Circle(lx + 9, ly, 4.5, {{"fill", "#ffffff"}, {"stroke", "#1f2933"}, {"stroke-width", "2"}});
    svg->Text(
        lx + 24, ly + 4,
        roofs.memory.slopes.empty() ? "ridge point (peak / bandwidth)" : "ridge point (peak / single slope)",
        {{"font-size", "11.5"}, {"fill", kInk}});
    ly += 19;
  }
  svg->Circle(lx + 9, ly, 8, {{"fill", "none"}, {"stroke", kAlert}, {"stroke-width", "2"}});
  svg->Text(lx + 24, ly + 4, "above its roof: counting error?", {{"font-size", "11.5"}, {"fill", kInk}});
  ly += 19;
  if (roofs.memory.slopes.empty()) return ly;
  return DrawMemoryLegend(roofs.memory.slopes, lx, ly + 8, svg);
}

// The legend's bottom edge when it starts at `top` (DrawLegendKeys, DrawLegendMarkers and the
// left-off note, counted generously), so the chart can grow to hold it.
double LegendBottom(const RooflineChart& chart, const std::vector<Marker>& markers, const RoofChoice& roofs,
                    double top) {
  std::vector<std::string> families;
  for (const RooflinePoint& p : chart.points) families.push_back(p.family);
  for (const Marker& m : markers) families.push_back(m.family);
  double y =
      top + 20 + 19.0 * FamilyOrder(families).size() + 10 + 19.0 * std::min<size_t>(roofs.roofs.size(), 4);
  y += 2 * 19;  // ridge, above the roof
  if (!roofs.memory.slopes.empty()) y += 8 + 19 + 19.0 * roofs.memory.slopes.size();
  if (!markers.empty()) y += 8 + 18 + 18.0 * std::min<size_t>(markers.size(), 7);
  return y + 6 + 3 * 14;  // the note on labels left off
}

// The subtitle: the roofs' summary (at most 3 lines), then the memory roofs' (at most 3).
std::vector<std::string> Subtitle(const RoofChoice& roofs) {
  std::vector<std::string> lines = WrapText(roofs.summary, 150);
  if (lines.size() > 3) lines.resize(3);
  std::vector<std::string> memory = WrapText(roofs.memory.summary, 150);
  if (memory.size() > 3) memory.resize(3);
  lines.insert(lines.end(), memory.begin(), memory.end());
  return lines;
}

// Legend: the cases without bytes, the fastest six. Returns the y below it.
double DrawLegendMarkers(const std::vector<Marker>& markers, double lx, double ly, SvgWriter* svg) {
  if (markers.empty()) return ly;
  ly += 8;
  svg->Text(lx, ly, "Without bytes (right edge)",
            {{"font-size", "12"}, {"font-weight", "bold"}, {"fill", kInk}});
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
                           const std::map<std::string, std::string>& colours, const std::string& machine) {
  RooflineChart chart;
  std::vector<Marker> markers;
  CollectPoints(data, roofs, colours, &chart, &markers);
  const std::vector<std::string> subtitle = Subtitle(roofs);
  // The plot starts below the subtitle's last line (92 px for three).
  const Axes ax = MakeAxes(chart, markers, roofs, std::max(92.0, 47.0 + 15.0 * subtitle.size()));
  const PlotRect& plot = ax.plot;
  const double height =
      std::max({kHeight, plot.bottom() + 58, LegendBottom(chart, markers, roofs, plot.y + 8)});

  SvgWriter svg(kWidth, height, ChartRootAttrs(plot, ax.xd.lo, ax.xd.hi, ax.yd.lo, ax.yd.hi, "roofline"));
  svg.Rect(0, 0, kWidth, height, {{"fill", "#ffffff"}});
  DrawTitle(&svg, 16, 26, machine.empty() ? "Roofline" : absl::StrCat("Roofline: ", machine), subtitle);
  DrawPlotBackground(&svg, plot);
  DrawLogGrid(&svg, plot, ax.sx, true);
  DrawLogGrid(&svg, plot, ax.sy, false);
  DrawFrameAndAxisTitles(&svg, plot, "Arithmetic intensity (FLOP/byte)", "Performance (FLOP/s)");

  LabelLayout labels(plot, 11);
  for (RooflinePoint& p : chart.points) {
    p.px = ax.sx(p.intensity);
    p.py = ax.sy(p.flops);
    labels.AddObstacle(p.px, p.py, kPointRadius + 1);
  }
  const double top_flops = roofs.roofs.empty() ? 0 : roofs.roofs[0].peak_flops;
  DrawMemorySlopes(roofs.memory.slopes, ax, top_flops, &svg);
  DrawRoofs(roofs, ax, chart.points, &svg, &labels);
  const int slopes_unlabelled = DrawMemorySlopeLabels(
      roofs.memory.slopes, ax, top_flops, roofs.roofs.empty() ? 0 : roofs.roofs[0].bandwidth, &labels, &svg);
  if (slopes_unlabelled > 0) {
    chart.notes.push_back(absl::StrCat(slopes_unlabelled, " of the ", roofs.memory.slopes.size(),
                                       " memory roofs had no room for a label on the chart: the legend names "
                                       "them"));
  }
  DrawNoBytesMarkers(markers, roofs, ax, &svg, &chart.notes);
  DrawPoints(&chart.points, &svg);
  DrawAboveRoofFlags(chart.points, &svg, &labels, &chart.notes);
  const int unlabelled = DrawPointLabels(chart.points, &svg, &labels);

  // Legend, right of the plot.
  const double lx = plot.right() + 26;
  double ly = DrawLegendKeys(chart, markers, roofs, colours, lx, plot.y + 8, &svg);
  ly = DrawLegendMarkers(markers, lx, ly, &svg);
  if (unlabelled > 0) {
    ly += 6;
    for (const std::string& line :
         WrapText(absl::StrCat(unlabelled,
                               " point labels left off where they would overlap; hover a point for its case"),
                  34)) {
      svg.Text(lx, ly, line, {{"font-size", "11"}, {"fill", kMutedInk}});
      ly += 14;
    }
  }
  if (chart.points.empty()) {
    svg.Text(plot.x + plot.w / 2, plot.y + plot.h / 2,
             "no case has both FLOP/s and bytes/s: nothing to place",
             {{"font-size", "14"}, {"fill", kMutedInk}}, "middle");
    chart.notes.push_back("No case has both FLOP/s and bytes/s: the roofline has no points.");
  }
  chart.svg = svg.Finish();
  return chart;
}

}  // namespace report
