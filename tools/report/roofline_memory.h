// The memory roofs on roofline.svg (memory_roof.h chooses them): one slope per DRAM traffic
// kind and per cache level, drawn under the compute roofs up to the highest of them.
//
// - Each DRAM kind has its own colour and a solid line; each cache level its own colour and a
//   dashed line, so a level is told from a kind at a glance and the legend names every one.
// - Each slope is labelled along itself in its colour (InlineText), and so is the single slope
//   of the compute roof (in kSingleSlopeInk), at the first spot from the slope's lower end
//   where the text overlaps no label or point placed before (LabelLayout::Free): just above
//   or below its line, else beside a nearby line. The DRAM kinds lie within a few pixels of
//   each other, so their labels stack outside the bundle, told apart by colour: first where no
//   line crosses the text, then anywhere (the text's halo keeps it readable across a line).
//   A slope with no free spot is named in the legend only, and the count is returned.
// - Every line carries class="memory-roof", data-kind, data-level and data-bytes-per-s, so a
//   test can find where it must be drawn.
#ifndef TOOLS_REPORT_ROOFLINE_MEMORY_H_
#define TOOLS_REPORT_ROOFLINE_MEMORY_H_

#include <string>
#include <vector>

#include "tools/report/chart_frame.h"
#include "tools/report/label_layout.h"
#include "tools/report/memory_roof.h"
#include "tools/report/scale.h"
#include "tools/report/svg_writer.h"

namespace report {

inline constexpr char kSingleSlopeInk[] = "#1f2933";  // the compute roofs' ink

struct SlopeStyle {
  std::string colour;
  std::string dash;  // "" solid
};

SlopeStyle StyleOf(const MemorySlope& slope);

// The log axes of the roofline and the plot they span.
struct RooflineAxes {
  PlotRect plot;
  Domain xd, yd;
  LogScale sx, sy;
};

// The slopes' lines, from where each enters the plot up to `top_flops` (the highest compute
// peak; 0: none, up to the plot's edge).
void DrawMemorySlopes(const std::vector<MemorySlope>& slopes, const RooflineAxes& ax, double top_flops,
                      SvgWriter* svg);

// The label on the chart: "in_place 38.0 GB/s" (DRAM: the level said in the legend),
// "L2 (read) 210.0 GB/s".
std::string InlineText(const MemorySlope& slope);

// Their labels and the single slope's (bandwidth `single_slope`; 0: none, no label), see
// above; returns how many found no spot.
int DrawMemorySlopeLabels(const std::vector<MemorySlope>& slopes, const RooflineAxes& ax, double top_flops,
                          double single_slope, LabelLayout* labels, SvgWriter* svg);

// The legend's block for them, from (x, y); returns the y below it.
double DrawMemoryLegend(const std::vector<MemorySlope>& slopes, double x, double y, SvgWriter* svg);

}  // namespace report

#endif  // TOOLS_REPORT_ROOFLINE_MEMORY_H_
