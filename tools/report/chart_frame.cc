// Shared chart furniture: titles, plot background, grids, frame, legend entries.
#include "tools/report/chart_frame.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tools/report/units.h"

namespace report {

double TextWidth(const std::string& text, double font_px) {
  // Count UTF-8 code points, not bytes.
  int n = 0;
  for (unsigned char c : text) n += (c & 0xc0) != 0x80;
  return n * 0.6 * font_px;
}

std::vector<std::string> WrapText(const std::string& text, size_t max_chars) {
  std::vector<std::string> lines;
  std::string line;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (!line.empty() && line.size() + 1 + word.size() > max_chars) {
      lines.push_back(line);
      line.clear();
    }
    if (!line.empty()) line += ' ';
    absl::StrAppend(&line, word);
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

Attrs WithHalo(Attrs attrs) {
  attrs.insert(attrs.end(), {{"stroke", "#ffffff"},
                             {"stroke-width", "3"},
                             {"stroke-linejoin", "round"},
                             {"paint-order", "stroke"}});
  return attrs;
}

Attrs ChartRootAttrs(const PlotRect& plot, double x_lo, double x_hi, double y_lo, double y_hi,
                     const std::string& chart_id) {
  auto num = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    return std::string(buf);
  };
  return {
      {"id", chart_id},
      {"font-family", kFont},
      {"data-plot", absl::StrCat(Coord(plot.x), " ", Coord(plot.y), " ", Coord(plot.w), " ", Coord(plot.h))},
      {"data-x-domain", absl::StrCat(num(x_lo), " ", num(x_hi))},
      {"data-y-domain", absl::StrCat(num(y_lo), " ", num(y_hi))}};
}

void DrawTitle(SvgWriter* svg, double x, double y, const std::string& title,
               const std::vector<std::string>& subtitle_lines) {
  svg->Text(x, y, title, {{"font-size", "17"}, {"font-weight", "bold"}, {"fill", kInk}});
  double yy = y + 19;
  for (const std::string& line : subtitle_lines) {
    svg->Text(x, yy, line, {{"font-size", "12"}, {"fill", kMutedInk}});
    yy += 15;
  }
}

void DrawPlotBackground(SvgWriter* svg, const PlotRect& plot) {
  svg->Rect(plot.x, plot.y, plot.w, plot.h, {{"fill", kPlotBackground}, {"class", "plot-area"}});
}

void DrawLogGrid(SvgWriter* svg, const PlotRect& plot, const LogScale& scale, bool x_axis,
                 const std::string& unit_suffix) {
  svg->BeginGroup({{"class", x_axis ? "grid-x" : "grid-y"}});
  // Minor lines: 2..9 x each decade.
  const int e0 = static_cast<int>(std::floor(std::log10(scale.lo()))) - 1;
  const int e1 = static_cast<int>(std::ceil(std::log10(scale.hi())));
  for (int e = e0; e <= e1; ++e) {
    for (int m = 2; m <= 9; ++m) {
      const double v = m * std::pow(10.0, e);
      if (v <= scale.lo() * (1 + 1e-9) || v >= scale.hi() * (1 - 1e-9)) continue;
      const double p = scale(v);
      if (x_axis)
        svg->Line(p, plot.y, p, plot.bottom(), {{"stroke", kMinorGrid}, {"stroke-width", "1"}});
      else
        svg->Line(plot.x, p, plot.right(), p, {{"stroke", kMinorGrid}, {"stroke-width", "1"}});
    }
  }
  for (double v : scale.DecadeTicks()) {
    const double p = scale(v);
    const bool edge = v <= scale.lo() * (1 + 1e-9) || v >= scale.hi() * (1 - 1e-9);
    const std::string label = FormatTick(v) + unit_suffix;
    if (x_axis) {
      if (!edge) svg->Line(p, plot.y, p, plot.bottom(), {{"stroke", kGrid}, {"stroke-width", "1"}});
      svg->Text(p, plot.bottom() + 16, label, {{"font-size", "11"}, {"fill", kMutedInk}}, "middle");
    } else {
      if (!edge) svg->Line(plot.x, p, plot.right(), p, {{"stroke", kGrid}, {"stroke-width", "1"}});
      svg->Text(plot.x - 6, p + 4, label, {{"font-size", "11"}, {"fill", kMutedInk}}, "end");
    }
  }
  svg->EndGroup();
}

void DrawPowerOfTwoGrid(SvgWriter* svg, const PlotRect& plot, const LogScale& scale) {
  svg->BeginGroup({{"class", "grid-x"}});
  for (double v : scale.PowerOfTwoTicks()) {
    const double p = scale(v);
    const bool edge = v <= scale.lo() * (1 + 1e-9) || v >= scale.hi() * (1 - 1e-9);
    if (!edge) svg->Line(p, plot.y, p, plot.bottom(), {{"stroke", kGrid}, {"stroke-width", "1"}});
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.0f", v);
    svg->Text(p, plot.bottom() + 16, buf, {{"font-size", "11"}, {"fill", kMutedInk}}, "middle");
  }
  svg->EndGroup();
}

void DrawLinearGridY(SvgWriter* svg, const PlotRect& plot, const LinearScale& scale,
                     const std::string& unit_suffix) {
  svg->BeginGroup({{"class", "grid-y"}});
  for (double v : scale.Ticks(6)) {
    const double p = scale(v);
    const bool edge = std::fabs(p - plot.bottom()) < 0.5 || std::fabs(p - plot.y) < 0.5;
    if (!edge) svg->Line(plot.x, p, plot.right(), p, {{"stroke", kGrid}, {"stroke-width", "1"}});
    svg->Text(plot.x - 6, p + 4, FormatTick(v) + unit_suffix, {{"font-size", "11"}, {"fill", kMutedInk}},
              "end");
  }
  svg->EndGroup();
}

void DrawLinearGridX(SvgWriter* svg, const PlotRect& plot, const LinearScale& scale) {
  svg->BeginGroup({{"class", "grid-x"}});
  for (double v : scale.Ticks(10)) {
    if (std::fabs(v - std::round(v)) > 1e-9) continue;
    const double p = scale(v);
    const bool edge = std::fabs(p - plot.x) < 0.5 || std::fabs(p - plot.right()) < 0.5;
    if (!edge) svg->Line(p, plot.y, p, plot.bottom(), {{"stroke", kGrid}, {"stroke-width", "1"}});
    svg->Text(p, plot.bottom() + 16, FormatTick(v), {{"font-size", "11"}, {"fill", kMutedInk}}, "middle");
  }
  svg->EndGroup();
}

void DrawFrameAndAxisTitles(SvgWriter* svg, const PlotRect& plot, const std::string& x_title,
                            const std::string& y_title) {
  svg->Rect(plot.x, plot.y, plot.w, plot.h, {{"fill", "none"}, {"stroke", "#9aa5b1"}, {"stroke-width", "1"}});
  svg->Text(plot.x + plot.w / 2, plot.bottom() + 36, x_title, {{"font-size", "12"}, {"fill", kInk}},
            "middle");
  const double yx = plot.x - 58, yy = plot.y + plot.h / 2;
  svg->Text(yx, yy, y_title,
            {{"font-size", "12"},
             {"fill", kInk},
             {"transform", absl::StrCat("rotate(-90 ", Coord(yx), " ", Coord(yy), ")")}},
            "middle");
}

void DrawLegendEntry(SvgWriter* svg, double x, double y, const std::string& colour, const std::string& text,
                     bool line, const std::string& dash) {
  if (line) {
    Attrs a = {{"stroke", colour}, {"stroke-width", "2"}};
    if (!dash.empty()) a.push_back({"stroke-dasharray", dash});
    svg->Line(x, y, x + 18, y, a);
  } else {
    svg->Circle(x + 9, y, 5, {{"fill", colour}, {"stroke", "#ffffff"}, {"stroke-width", "1"}});
  }
  svg->Text(x + 24, y + 4, text, {{"font-size", "11.5"}, {"fill", kInk}});
}

}  // namespace report
