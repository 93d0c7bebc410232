// The scaling map's charts: markers, legend, and the five SVGs (scaling_charts.h).
#include "tools/report/scaling_charts.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/report/chart_frame.h"
#include "tools/report/label_layout.h"
#include "tools/report/scale.h"
#include "tools/report/svg_writer.h"
#include "tools/report/units.h"

namespace report {
namespace {

constexpr double kWidth = 980, kLegendWidth = 300, kTop = 84, kMarkerR = 4.5;

PlotRect PlotFor(double height, double top = kTop, double bottom_margin = 58) {
  return {92, top, kWidth - 92 - kLegendWidth - 20, height - top - bottom_margin};
}

const char* const kShapes[] = {"circle", "square", "diamond", "triangle"};
const char* const kDashes[] = {"", "7 4", "2 3", "9 3 2 3", "4 2"};

std::string Dash(int style) { return kDashes[style % 5]; }

std::string Num(double v) { return absl::StrFormat("%.17g", v); }

// The power-of-two interval around `values`, widened by half a doubling at each end so the
// first and last markers sit inside the plot.
Domain PaddedPowerOfTwoDomain(const std::vector<double>& values) {
  const Domain d = PowerOfTwoDomain(values);
  return {d.lo / std::sqrt(2.0), d.hi * std::sqrt(2.0)};
}

// A marker of the series' shape centred (its centroid) on (cx, cy); `fill` "#ffffff" for hollow.
void Marker(SvgWriter* svg, int style, double cx, double cy, const std::string& fill,
            const std::string& stroke, Attrs attrs, const std::string& title) {
  const double r = kMarkerR;
  Attrs a = {{"fill", fill}, {"stroke", stroke}, {"stroke-width", fill == "#ffffff" ? "1.8" : "1"}};
  a.insert(a.end(), attrs.begin(), attrs.end());
  switch (style % 4) {
    case 0: svg->Circle(cx, cy, r, a, title); break;
    case 1: svg->Rect(cx - 0.9 * r, cy - 0.9 * r, 1.8 * r, 1.8 * r, a, title); break;
    case 2:
      svg->Polygon({{cx, cy - 1.3 * r}, {cx + 1.3 * r, cy}, {cx, cy + 1.3 * r}, {cx - 1.3 * r, cy}}, a,
                   title);
      break;
    default:  // a triangle whose centroid is the point: apex 2/3 of its height above, base 1/3 below
      svg->Polygon({{cx, cy - 1.5 * r}, {cx + 1.35 * r, cy + 0.75 * r}, {cx - 1.35 * r, cy + 0.75 * r}}, a,
                   title);
  }
}

Attrs PointAttrs(const ScalingPoint& p, double x, double y) {
  return {{"class", "point"},
          {"data-case", p.name},
          {"data-machine", p.machine_key},
          {"data-x", Num(x)},
          {"data-y", Num(y)}};
}

// The tooltip of a point: its name, machine and every value it has.
std::string Tip(const ScalingMap& m, const ScalingPoint& p) {
  std::string t = absl::StrCat(p.name, "\n", m.machines[m.series[p.series].machine].Legend(), "\n",
                               absl::StrFormat("B·T %.0f (B:%.0f T:%.0f), %d repetition%s", p.tokens, p.batch,
                                               p.seq, p.repetitions, p.repetitions == 1 ? "" : "s"));
  if (p.mfu) {
    absl::StrAppend(
        &t, absl::StrFormat("\nMFU %.1f%%", 100 * *p.mfu),
        p.mfu_spread ? absl::StrFormat(" (repetitions within %.1f points)", 100 * *p.mfu_spread) : "");
  }
  if (p.ms) absl::StrAppend(&t, "\nstep ", FormatSeconds(*p.ms / 1e3));
  if (p.predicted_ms) absl::StrAppend(&t, ", predicted ", FormatSeconds(*p.predicted_ms / 1e3));
  if (p.tokens_per_second) absl::StrAppend(&t, "\n", FormatSi(*p.tokens_per_second, "tokens/s"));
  if (p.attention_share)
    absl::StrAppend(&t, absl::StrFormat("\nattention %.1f%% of the FLOPs", 100 * *p.attention_share));
  if (p.mem_measured) absl::StrAppend(&t, "\npeak memory ", FormatSi(*p.mem_measured, "B"), " measured");
  if (p.mem_predicted)
    absl::StrAppend(&t, p.mem_measured ? ", " : "\npeak memory ", FormatSi(*p.mem_predicted, "B"),
                    " predicted");
  if (p.disturbed) t += "\nDISTURBED: the machine was busy during this point";
  return t;
}

// The legend at the right: the machines (colour, CPU, ISA, peak), the series (shape and dash),
// then `extras` (a marker drawn by the function, and its text). Returns the y below it.
double DrawLegend(
    SvgWriter* svg, const ScalingMap& m, double y,
    const std::vector<std::pair<std::function<void(double, double)>, std::string>>& extras = {}) {
  const double x = kWidth - kLegendWidth - 4;
  const bool several = m.machines.size() > 1;
  svg->Text(x, y, several ? "Machines (colour)" : "Machine",
            {{"font-size", "12"}, {"font-weight", "bold"}, {"fill", kInk}});
  y += 18;
  for (const ScalingMachine& machine : m.machines) {
    std::vector<std::string> lines = WrapText(machine.Legend(), 38);
    if (several)
      DrawLegendEntry(svg, x, y, machine.colour, lines[0]);
    else
      svg->Text(x, y + 4, lines[0], {{"font-size", "11.5"}, {"fill", kInk}, {"class", "machine-legend"}});
    for (size_t i = 1; i < lines.size(); ++i)
      svg->Text(x + (several ? 24 : 0), y + 4 + 14 * i, lines[i], {{"font-size", "11.5"}, {"fill", kInk}});
    y += 14 * lines.size() + 8;
  }
  svg->Text(x, y + 6, several ? "Series (shape, dash)" : "Series",
            {{"font-size", "12"}, {"font-weight", "bold"}, {"fill", kInk}});
  y += 24;
  std::set<int> shown;
  for (const ScalingSeries& s : m.series) {
    if (!shown.insert(s.style).second) continue;
    const std::string colour = several ? std::string(kMutedInk) : s.colour;
    Attrs line = {{"stroke", colour}, {"stroke-width", "2"}};
    if (!Dash(s.style).empty()) line.push_back({"stroke-dasharray", Dash(s.style)});
    svg->Line(x, y, x + 22, y, line);
    Marker(svg, s.style, x + 11, y, colour, "#ffffff", {}, "");
    svg->Text(x + 30, y + 4, s.Label(), {{"font-size", "11.5"}, {"fill", kInk}});
    y += 19;
  }
  for (const auto& [draw, text] : extras) {
    draw(x + 11, y);
    svg->Text(x + 30, y + 4, text, {{"font-size", "11.5"}, {"fill", kInk}});
    y += 22;
  }
  return y;
}

Attrs LineAttrs(const ScalingSeries& s) {
  // Half-opaque, so no pixel of a line has the markers' exact colour (the browser test's check).
  Attrs a = {{"stroke", s.colour}, {"stroke-width", "2"}, {"stroke-opacity", "0.5"}};
  if (!Dash(s.style).empty()) a.push_back({"stroke-dasharray", Dash(s.style)});
  return a;
}

// Rings around a marker (whose farthest corner is 1.5 r from its centre): the knee's inside the
// alert's, so a point can carry both.
void KneeRing(SvgWriter* svg, double x, double y, const std::string& cls, const std::string& title = "") {
  svg->Circle(x, y, 8.5, {{"fill", "none"}, {"stroke", kInk}, {"stroke-width", "1.6"}, {"class", cls}},
              title);
}

void AlertRing(SvgWriter* svg, double x, double y, const std::string& cls, const std::string& title = "") {
  svg->Circle(x, y, 11, {{"fill", "none"}, {"stroke", kAlert}, {"stroke-width", "2"}, {"class", cls}}, title);
}

std::vector<std::string> MachinesSubtitle(const ScalingMap& m, const std::string& first) {
  std::vector<std::string> lines = {first};
  if (m.machines.size() > 1)
    lines.push_back(absl::StrCat(m.machines.size(),
                                 " machines overlaid, one colour each; series by marker shape and dash."));
  return lines;
}

// scaling_mfu.svg.
std::string DrawMfu(const ScalingMap& m) {
  std::vector<double> xs, ys;
  for (const ScalingPoint& p : m.points) {
    if (p.mfu) xs.push_back(p.tokens), ys.push_back(100 * *p.mfu);
  }
  if (xs.empty()) return "";
  const double height = 640;
  const PlotRect plot = PlotFor(height);
  const Domain xd = PaddedPowerOfTwoDomain(xs), yd = NiceLinearDomainFromZero(ys, 0.08);
  const LogScale sx(xd.lo, xd.hi, plot.x, plot.right());
  const LinearScale sy(yd.lo, yd.hi, plot.bottom(), plot.y);
  SvgWriter svg(kWidth, height, ChartRootAttrs(plot, xd.lo, xd.hi, yd.lo, yd.hi, "scaling-mfu"));
  svg.Rect(0, 0, kWidth, height, {{"fill", "#ffffff"}});
  DrawTitle(
      &svg, 16, 26, "MFU against tokens per step (B·T)",
      MachinesSubtitle(m, absl::StrFormat("One line per series through its best MFU at each B·T. Ringed: the "
                                          "knee, the smallest B·T reaching %.0f%% of the best MFU.",
                                          100 * accounting::kKneeFraction)));
  DrawPlotBackground(&svg, plot);
  DrawPowerOfTwoGrid(&svg, plot, sx);
  DrawLinearGridY(&svg, plot, sy, "%");
  DrawFrameAndAxisTitles(&svg, plot, "Tokens per step (B·T, log 2)", "MFU (%)");
  LabelLayout labels(plot, 11);
  for (const ScalingPoint& p : m.points) {
    if (p.mfu) labels.AddObstacle(sx(p.tokens), sy(100 * *p.mfu), kMarkerR + 7);
  }
  for (const ScalingSeries& s : m.series) {
    std::vector<std::pair<double, double>> line;
    for (size_t i : s.curve) line.push_back({sx(m.points[i].tokens), sy(100 * *m.points[i].mfu)});
    svg.Polyline(line, LineAttrs(s));
  }
  svg.BeginGroup({{"class", "points"}});
  for (const ScalingSeries& s : m.series) {
    for (size_t i : s.points) {
      const ScalingPoint& p = m.points[i];
      if (!p.mfu) continue;
      std::string tip = Tip(m, p);
      if (std::find(s.curve.begin(), s.curve.end(), i) == s.curve.end())
        tip += "\noff the line: another point at this B·T has a higher MFU";
      Marker(&svg, s.style, sx(p.tokens), sy(100 * *p.mfu), s.colour, "#ffffff",
             PointAttrs(p, p.tokens, 100 * *p.mfu), tip);
    }
  }
  svg.EndGroup();
  for (const ScalingSeries& s : m.series) {
    if (s.knee) {
      const ScalingPoint& k = m.points[*s.knee];
      const double x = sx(k.tokens), y = sy(100 * *k.mfu);
      KneeRing(&svg, x, y, "knee", KneeLine(m, s));
      const std::string text = absl::StrFormat("knee B·T=%.0f", k.tokens);
      if (auto spot = labels.Place(x, y, 10, text))
        svg.Text(spot->x, spot->y, text,
                 WithHalo({{"font-size", "11"}, {"fill", kInk}, {"class", "knee-label"}}), spot->anchor);
    }
    for (const auto& [i, t] : s.breaks) {
      const ScalingPoint& p = m.points[i];
      AlertRing(&svg, sx(p.tokens), sy(100 * *p.mfu), "trend-break",
                absl::StrFormat("%s: trend break: MFU %.1f%%, %.1f points %s the line through its neighbours "
                                "(%.1f%%), more than the repetitions' spread (%.1f points)",
                                p.name, 100 * *p.mfu, 100 * std::fabs(t.deviation),
                                t.deviation < 0 ? "below" : "above", 100 * t.expected_y, 100 * t.allowed));
    }
  }
  DrawLegend(
      &svg, m, plot.y + 8,
      {{[&](double x, double y) { KneeRing(&svg, x, y, "legend"); }, "knee (90% of the best MFU)"},
       {[&](double x, double y) { AlertRing(&svg, x, y, "legend"); }, "trend break (beyond the spread)"}});
  return svg.Finish();
}

// One line per series and batch over `y` against T; markers at every point with a value.
template <typename YScale>
void DrawByBatch(SvgWriter* svg, const ScalingMap& m, const LogScale& sx, const YScale& sy,
                 const std::function<std::optional<double>(const ScalingPoint&)>& value,
                 const std::string& cls) {
  for (const ScalingSeries& s : m.series) {
    std::map<double, std::vector<std::pair<double, double>>> by_batch;  // batch -> (T, y)
    for (size_t i : s.points) {
      if (auto v = value(m.points[i])) by_batch[m.points[i].batch].push_back({m.points[i].seq, *v});
    }
    for (auto& [batch, pts] : by_batch) {
      std::sort(pts.begin(), pts.end());
      std::vector<std::pair<double, double>> line;
      for (const auto& [t, v] : pts) line.push_back({sx(t), sy(v)});
      svg->Polyline(line, LineAttrs(s));
    }
  }
  svg->BeginGroup({{"class", cls}});
  for (const ScalingSeries& s : m.series) {
    for (size_t i : s.points) {
      const ScalingPoint& p = m.points[i];
      if (auto v = value(p))
        Marker(svg, s.style, sx(p.seq), sy(*v), s.colour, "#ffffff", PointAttrs(p, p.seq, *v), Tip(m, p));
    }
  }
  svg->EndGroup();
}

// scaling_time.svg: step time (upper panel) and the attention share of the FLOPs (lower) against T.
std::string DrawTime(const ScalingMap& m) {
  std::vector<double> ts, ms, shares;
  for (const ScalingPoint& p : m.points) {
    if (p.ms && *p.ms > 0) ts.push_back(p.seq), ms.push_back(*p.ms);
    if (p.attention_share) ts.push_back(p.seq), shares.push_back(100 * *p.attention_share);
  }
  if (ms.empty() && shares.empty()) return "";
  const double height = 720, panel = 250;
  const PlotRect upper = {92, kTop, kWidth - 92 - kLegendWidth - 20, panel};
  const PlotRect lower = {upper.x, upper.bottom() + 70, upper.w, panel};
  const Domain xd = PaddedPowerOfTwoDomain(ts), yd = NiceLogDomain(ms),
               ad = NiceLinearDomainFromZero(shares, 0.08);
  const LogScale sx(xd.lo, xd.hi, upper.x, upper.right());
  const LogScale sy(yd.lo, yd.hi, upper.bottom(), upper.y);
  const LinearScale sa(ad.lo, ad.hi, lower.bottom(), lower.y);
  SvgWriter svg(kWidth, height, ChartRootAttrs(upper, xd.lo, xd.hi, yd.lo, yd.hi, "scaling-time"));
  svg.Rect(0, 0, kWidth, height, {{"fill", "#ffffff"}});
  DrawTitle(
      &svg, 16, 26, "Step time and the attention term's share of the FLOPs against T",
      MachinesSubtitle(m,
                       "Upper: measured step time (log). Lower: attention FLOPs over all FLOPs of the step. "
                       "One line per series and batch."));
  DrawPlotBackground(&svg, upper);
  DrawPowerOfTwoGrid(&svg, upper, sx);
  DrawLogGrid(&svg, upper, sy, false, " ms");
  DrawFrameAndAxisTitles(&svg, upper, "Sequence length T (log 2)", "Step time (ms)");
  DrawByBatch<LogScale>(
      &svg, m, sx, sy, [](const ScalingPoint& p) { return p.ms && *p.ms > 0 ? p.ms : std::nullopt; },
      "points");
  svg.BeginGroup({{"class", "panel-lower"},
                  {"data-plot", absl::StrCat(Coord(lower.x), " ", Coord(lower.y), " ", Coord(lower.w), " ",
                                             Coord(lower.h))},
                  {"data-x-domain", absl::StrCat(Num(xd.lo), " ", Num(xd.hi))},
                  {"data-y-domain", absl::StrCat(Num(ad.lo), " ", Num(ad.hi))}});
  DrawPlotBackground(&svg, lower);
  DrawPowerOfTwoGrid(&svg, lower, sx);
  DrawLinearGridY(&svg, lower, sa, "%");
  DrawFrameAndAxisTitles(&svg, lower, "Sequence length T (log 2)", "Attention share of FLOPs (%)");
  DrawByBatch<LinearScale>(
      &svg, m, sx, sa,
      [](const ScalingPoint& p) {
        return p.attention_share ? std::optional<double>(100 * *p.attention_share) : std::nullopt;
      },
      "points-lower");
  svg.EndGroup();
  DrawLegend(&svg, m, upper.y + 8);
  return svg.Finish();
}

// scaling_tokens.svg: tokens/s against parameters; each preset's best joined per machine, device,
// dtype and recompute level.
std::string DrawTokens(const ScalingMap& m) {
  std::vector<double> xs, ys;
  for (const ScalingPoint& p : m.points) {
    if (p.params && p.tokens_per_second && *p.tokens_per_second > 0)
      xs.push_back(*p.params), ys.push_back(*p.tokens_per_second);
  }
  if (xs.empty()) return "";
  const double height = 500;
  const PlotRect plot = PlotFor(height);
  const Domain xd = NiceLogDomain(xs), yd = NiceLogDomain(ys);
  const LogScale sx(xd.lo, xd.hi, plot.x, plot.right());
  const LogScale sy(yd.lo, yd.hi, plot.bottom(), plot.y);
  SvgWriter svg(kWidth, height, ChartRootAttrs(plot, xd.lo, xd.hi, yd.lo, yd.hi, "scaling-tokens"));
  svg.Rect(0, 0, kWidth, height, {{"fill", "#ffffff"}});
  DrawTitle(
      &svg, 16, 26, "Tokens per second against model size",
      MachinesSubtitle(m,
                       "Every point of the sweep; a line joins each preset's best per machine, device, dtype "
                       "and recompute level."));
  DrawPlotBackground(&svg, plot);
  DrawLogGrid(&svg, plot, sx, true);
  DrawLogGrid(&svg, plot, sy, false);
  DrawFrameAndAxisTitles(&svg, plot, "Parameters (log)", "Tokens per second (log)");
  // (machine, device, dtype, recompute) -> params -> (best tokens/s, its series)
  std::map<std::tuple<size_t, std::string, std::string, std::string>,
           std::map<double, std::pair<double, size_t>>>
      best;
  for (const ScalingPoint& p : m.points) {
    if (!p.params || !p.tokens_per_second || !(*p.tokens_per_second > 0)) continue;
    const ScalingSeries& s = m.series[p.series];
    auto& slot = best[{s.machine, s.device, s.dtype, s.recompute}][*p.params];
    if (*p.tokens_per_second > slot.first) slot = {*p.tokens_per_second, p.series};
  }
  for (const auto& [key, by_params] : best) {
    std::vector<std::pair<double, double>> line;
    for (const auto& [params, b] : by_params) line.push_back({sx(params), sy(b.first)});
    const std::string& colour = m.series[by_params.begin()->second.second].colour;
    svg.Polyline(line, {{"stroke", colour}, {"stroke-width", "2"}, {"stroke-opacity", "0.5"}});
  }
  svg.BeginGroup({{"class", "points"}});
  for (const ScalingPoint& p : m.points) {
    if (!p.params || !p.tokens_per_second || !(*p.tokens_per_second > 0)) continue;
    const ScalingSeries& s = m.series[p.series];
    Marker(&svg, s.style, sx(*p.params), sy(*p.tokens_per_second), s.colour, "#ffffff",
           PointAttrs(p, *p.params, *p.tokens_per_second), Tip(m, p));
  }
  svg.EndGroup();
  DrawLegend(&svg, m, plot.y + 8);
  return svg.Finish();
}

// scaling_predicted.svg: predicted against measured step time, y = x and the +-25% band.
std::string DrawPredicted(const ScalingMap& m) {
  std::vector<double> all;
  for (const ScalingPoint& p : m.points) {
    if (p.ms && p.predicted_ms && *p.ms > 0 && *p.predicted_ms > 0)
      all.push_back(*p.ms), all.push_back(*p.predicted_ms);
  }
  if (all.empty()) return "";
  const double height = 620;
  const PlotRect plot = PlotFor(height);
  const Domain d = NiceLogDomain(all);
  const LogScale sx(d.lo, d.hi, plot.x, plot.right());
  const LogScale sy(d.lo, d.hi, plot.bottom(), plot.y);
  SvgWriter svg(kWidth, height, ChartRootAttrs(plot, d.lo, d.hi, d.lo, d.hi, "scaling-predicted"));
  svg.Rect(0, 0, kWidth, height, {{"fill", "#ffffff"}});
  DrawTitle(&svg, 16, 26, "Predicted against measured step time",
            MachinesSubtitle(
                m, absl::StrFormat("On the line y = x the prediction is exact; shaded: within %.0f%% of "
                                   "the measured time. Ringed: outside it.",
                                   100 * kPredictionBand)));
  DrawPlotBackground(&svg, plot);
  const double lo = d.lo, hi = d.hi, below = 1 - kPredictionBand, above = 1 + kPredictionBand;
  svg.Polygon({{sx(lo), sy(lo)},
               {sx(lo / below), sy(lo)},
               {sx(hi), sy(hi * below)},
               {sx(hi), sy(hi)},
               {sx(hi / above), sy(hi)},
               {sx(lo), sy(lo * above)}},
              {{"fill", "#dfe9d8"}, {"class", "band"}});
  DrawLogGrid(&svg, plot, sx, true, " ms");
  DrawLogGrid(&svg, plot, sy, false, " ms");
  svg.Line(sx(lo), sy(lo), sx(hi), sy(hi),
           {{"stroke", kMutedInk}, {"stroke-width", "1.4"}, {"class", "identity"}});
  DrawFrameAndAxisTitles(&svg, plot, "Measured step time (ms, log)", "Predicted step time (ms, log)");
  svg.BeginGroup({{"class", "points"}});
  std::vector<const ScalingPoint*> outside;
  for (const ScalingPoint& p : m.points) {
    if (!p.ms || !p.predicted_ms || !(*p.ms > 0) || !(*p.predicted_ms > 0)) continue;
    const ScalingSeries& s = m.series[p.series];
    Marker(&svg, s.style, sx(*p.ms), sy(*p.predicted_ms), s.colour, "#ffffff",
           PointAttrs(p, *p.ms, *p.predicted_ms), Tip(m, p));
    if (std::fabs(*p.predicted_ms / *p.ms - 1) > kPredictionBand) outside.push_back(&p);
  }
  svg.EndGroup();
  for (const ScalingPoint* p : outside) {
    AlertRing(
        &svg, sx(*p->ms), sy(*p->predicted_ms), "outside-band",
        absl::StrFormat("%s: predicted %s is %.0f%% %s the measured %s", p->name,
                        FormatSeconds(*p->predicted_ms / 1e3), 100 * std::fabs(*p->predicted_ms / *p->ms - 1),
                        *p->predicted_ms > *p->ms ? "above" : "below", FormatSeconds(*p->ms / 1e3)));
  }
  DrawLegend(&svg, m, plot.y + 8,
             {{[&](double x, double y) {
                 svg.Rect(x - 9, y - 6, 18, 12, {{"fill", "#dfe9d8"}});
               },
               absl::StrFormat("within %.0f%% of measured", 100 * kPredictionBand)},
              {[&](double x, double y) { AlertRing(&svg, x, y, "legend"); }, "outside the band"}});
  return svg.Finish();
}

// scaling_memory.svg: peak memory against B·T, measured filled and predicted hollow.
std::string DrawMemory(const ScalingMap& m) {
  std::vector<double> xs, ys;
  for (const ScalingPoint& p : m.points) {
    for (const auto& v : {p.mem_measured, p.mem_predicted}) {
      if (v && *v > 0) xs.push_back(p.tokens), ys.push_back(*v);
    }
  }
  if (xs.empty()) return "";
  const double height = 540;
  const PlotRect plot = PlotFor(height);
  const Domain xd = PaddedPowerOfTwoDomain(xs), yd = NiceLogDomain(ys);
  const LogScale sx(xd.lo, xd.hi, plot.x, plot.right());
  const LogScale sy(yd.lo, yd.hi, plot.bottom(), plot.y);
  SvgWriter svg(kWidth, height, ChartRootAttrs(plot, xd.lo, xd.hi, yd.lo, yd.hi, "scaling-memory"));
  svg.Rect(0, 0, kWidth, height, {{"fill", "#ffffff"}});
  DrawTitle(&svg, 16, 26, "Peak memory against tokens per step (B·T)",
            MachinesSubtitle(
                m,
                "Filled: measured (the process's peak resident memory, VmHWM). Hollow: predicted by the "
                "memory ledger. A thin line joins the two of a point."));
  DrawPlotBackground(&svg, plot);
  DrawPowerOfTwoGrid(&svg, plot, sx);
  DrawLogGrid(&svg, plot, sy, false, "B");
  DrawFrameAndAxisTitles(&svg, plot, "Tokens per step (B·T, log 2)", "Peak memory (bytes, log)");
  for (const ScalingPoint& p : m.points) {
    if (p.mem_measured && p.mem_predicted && *p.mem_measured > 0 && *p.mem_predicted > 0)
      svg.Line(sx(p.tokens), sy(*p.mem_measured), sx(p.tokens), sy(*p.mem_predicted),
               {{"stroke", m.series[p.series].colour}, {"stroke-width", "1"}, {"stroke-opacity", "0.6"}});
  }
  svg.BeginGroup({{"class", "points"}});
  for (const ScalingPoint& p : m.points) {
    const ScalingSeries& s = m.series[p.series];
    if (p.mem_predicted && *p.mem_predicted > 0) {
      Attrs a = PointAttrs(p, p.tokens, *p.mem_predicted);
      a[0].second = "point predicted";
      Marker(&svg, s.style, sx(p.tokens), sy(*p.mem_predicted), "#ffffff", s.colour, a, Tip(m, p));
    }
    if (p.mem_measured && *p.mem_measured > 0)
      Marker(&svg, s.style, sx(p.tokens), sy(*p.mem_measured), s.colour, "#ffffff",
             PointAttrs(p, p.tokens, *p.mem_measured), Tip(m, p));
  }
  svg.EndGroup();
  DrawLegend(
      &svg, m, plot.y + 8,
      {{[&](double x, double y) { Marker(&svg, 0, x, y, kMutedInk, "#ffffff", {}, ""); }, "measured (VmHWM)"},
       {[&](double x, double y) { Marker(&svg, 0, x, y, "#ffffff", kMutedInk, {}, ""); }, "predicted"}});
  return svg.Finish();
}

}  // namespace

ScalingCharts DrawScalingCharts(const ScalingMap& m) {
  ScalingCharts out;
  if (m.empty()) return out;
  const std::pair<std::function<std::string(const ScalingMap&)>, const char*> charts[] = {
      {DrawMfu, "no point has an mfu counter"},
      {DrawTime, "no point has a step time or an attention_flops_share counter"},
      {DrawTokens, "no point has both tokens_per_second and params counters"},
      {DrawPredicted, "no point has both a step time and a predicted_ms counter"},
      {DrawMemory, "no point has a mem_peak_bytes_measured or mem_peak_bytes counter"}};
  for (size_t i = 0; i < 5; ++i) {
    std::string svg = charts[i].first(m);
    if (svg.empty()) {
      out.absent.push_back(absl::StrCat("No ", kScalingFiles[i], ": ", charts[i].second, "."));
    } else {
      out.files.push_back({kScalingFiles[i], std::move(svg)});
    }
  }
  return out;
}

}  // namespace report
