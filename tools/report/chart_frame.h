// What every chart of the report shares: the plot rectangle, its background, gridlines, tick
// labels and axis titles, the chart title, and a text-width estimate for placing labels.
//
// The plot area is filled with kPlotBackground and carries data-plot="x y w h" plus the axis
// domains (data-x-domain, data-y-domain) on the <svg> element, so a test can locate the plot
// in a screenshot and compute where a data point must be drawn.
#ifndef TOOLS_REPORT_CHART_FRAME_H_
#define TOOLS_REPORT_CHART_FRAME_H_

#include <string>
#include <vector>

#include "tools/report/scale.h"
#include "tools/report/svg_writer.h"

namespace report {

inline constexpr char kFont[] = "DejaVu Sans, Liberation Sans, Arial, sans-serif";
inline constexpr char kPlotBackground[] = "#f4f7fb";
inline constexpr char kGrid[] = "#dde3ea";
inline constexpr char kMinorGrid[] = "#e9edf2";
inline constexpr char kInk[] = "#222222";
inline constexpr char kMutedInk[] = "#5c6670";
inline constexpr char kAlert[] = "#d0021b";

struct PlotRect {
  double x = 0, y = 0, w = 0, h = 0;
  double right() const { return x + w; }
  double bottom() const { return y + h; }
  bool Contains(double px, double py) const {
    return px >= x - 0.5 && px <= right() + 0.5 && py >= y - 0.5 && py <= bottom() + 0.5;
  }
};

// Width in pixels of `text` at `font_px` (DejaVu Sans averages 0.6 em per character).
double TextWidth(const std::string& text, double font_px);

// Splits `text` at spaces into lines of at most `max_chars` characters.
std::vector<std::string> WrapText(const std::string& text, size_t max_chars);

// `attrs` plus a white outline drawn under the glyphs, so a label stays readable where it
// crosses a line or a gridline.
Attrs WithHalo(Attrs attrs);

// Root attributes for a chart's <svg>: font, the plot rectangle and domains (for tests).
Attrs ChartRootAttrs(const PlotRect& plot, double x_lo, double x_hi, double y_lo, double y_hi,
                     const std::string& chart_id);

// Title (bold) and subtitle lines (muted), from the top-left corner.
void DrawTitle(SvgWriter* svg, double x, double y, const std::string& title,
               const std::vector<std::string>& subtitle_lines);

// The plot background.
void DrawPlotBackground(SvgWriter* svg, const PlotRect& plot);

// Log-axis gridlines: decades (with labels via FormatTick) and 2..9 minor lines.
// `x_axis` true: vertical lines for the x scale; false: horizontal lines for y.
void DrawLogGrid(SvgWriter* svg, const PlotRect& plot, const LogScale& scale, bool x_axis,
                 const std::string& unit_suffix = "");
// Power-of-two gridlines for a log x axis (sizes), labelled with the value.
void DrawPowerOfTwoGrid(SvgWriter* svg, const PlotRect& plot, const LogScale& scale);
// Linear gridlines for y (labels with FormatTick and the suffix).
void DrawLinearGridY(SvgWriter* svg, const PlotRect& plot, const LinearScale& scale,
                     const std::string& unit_suffix = "");
// Linear gridlines for x, integer ticks only (step indices).
void DrawLinearGridX(SvgWriter* svg, const PlotRect& plot, const LinearScale& scale);

// The frame around the plot and the axis titles (x below, y rotated on the left).
void DrawFrameAndAxisTitles(SvgWriter* svg, const PlotRect& plot, const std::string& x_title,
                            const std::string& y_title);

// A legend entry: a filled circle (or a line when `line` is true) and its text.
void DrawLegendEntry(SvgWriter* svg, double x, double y, const std::string& colour, const std::string& text,
                     bool line = false, const std::string& dash = "");

}  // namespace report

#endif  // TOOLS_REPORT_CHART_FRAME_H_
