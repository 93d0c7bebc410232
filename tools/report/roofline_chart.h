// roofline.svg: every case with FLOPs and bytes as a point on a log-log chart of performance
// (FLOP/s) against arithmetic intensity (FLOP/byte), under the roof min(peak, I x bandwidth)
// (accounting::Roofline, after Williams, Waterman and Patterson's roofline paper).
//
// - One roof per dtype of the chosen ceilings (roof.h); the subtitle says which kind they are
//   (measured ceilings, a start-up measurement, datasheet) and where they come from. Its slope
//   is the single memory slope (STREAM copy) of the cases that do not count their traffic.
// - The ridge point (peak / that slope's bandwidth) is marked with a dashed line down to the
//   x axis.
// - The memory roofs per traffic kind and cache level (memory_roof.h, drawn by
//   roofline_memory.h), each labelled; the subtitle says what a kind is.
// - Each point is placed against its own roof (point_roof.h): a case that counts its traffic
//   against min(its dtype's peak, intensity x the roof of its kind and level), any other
//   against its dtype's roof. Its tooltip names that roof and the point's % of it.
// - Points are coloured by op family (family.h) and labelled where a label fits.
// - A point above its own roof (by more than kRoofTolerance) cannot be: the chart rings it and
//   says "counting error?", as the roofline chapter warns. The note lists the causes: FLOPs
//   over-counted, bytes under-counted, a ceiling measured too low, or data served from cache,
//   which a DRAM roof does not bound (a case that does not say its working set).
// - Cases with FLOP/s but no bytes (gpt_step) have no intensity: a marker at the right edge
//   shows their FLOP/s against the compute roof.
#ifndef TOOLS_REPORT_ROOFLINE_CHART_H_
#define TOOLS_REPORT_ROOFLINE_CHART_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "accounting/memory_roofs.h"
#include "tools/report/roof.h"
#include "tools/report/run_data.h"

namespace report {

inline constexpr double kRoofTolerance = 0.03;  // 3% above the roof is still measurement noise

// The attainable FLOP/s at `intensity` under `roof` (min(peak, I x bandwidth)); the peak
// alone when the roof has no bandwidth.
double Attainable(const Roof& roof, double intensity);

struct RooflinePoint {
  std::string case_name;
  std::string label;
  std::string family;
  std::string colour;
  double intensity = 0;   // FLOP/byte
  double flops = 0;       // FLOP/s
  double attainable = 0;  // the roof above it; 0 without a roof
  bool above_roof = false;
  // The memory roof it is held to: its own (kind and level), or nullopt for the single slope.
  std::optional<accounting::HeldRoof> memory_roof;
  std::string roof_label;        // that roof, named (PointRoof::MemoryLabel); "" without one
  bool compute_bound = false;    // the compute peak, not the memory roof, binds at its intensity
  double working_set_bytes = 0;  // its working_set_bytes counter; 0: unknown
  double px = 0, py = 0;  // where it was drawn
};

struct RooflineChart {
  std::string svg;
  std::vector<RooflinePoint> points;
  std::vector<std::string> notes;  // points above the roof, cases left off and why
};

// `colours`: family -> colour (shared with the other charts and the table).
RooflineChart DrawRoofline(const RunData& data, const RoofChoice& roofs,
                           const std::map<std::string, std::string>& colours, const std::string& machine);

}  // namespace report

#endif  // TOOLS_REPORT_ROOFLINE_CHART_H_
