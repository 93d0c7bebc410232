// The roof a roofline point is held to: its dtype's compute peak (roof.h) and its memory roof,
// either its own (memory_roof.h: its traffic kind and cache level) or, for a case that does not
// count its traffic, its dtype's single slope. The chart, its flags and the case table's
// "% of roof" and "roof" columns all read it from here, so they agree.
#ifndef TOOLS_REPORT_POINT_ROOF_H_
#define TOOLS_REPORT_POINT_ROOF_H_

#include <optional>
#include <string>

#include "accounting/memory_roofs.h"
#include "tools/report/roof.h"
#include "tools/report/run_data.h"

namespace report {

struct PointRoof {
  double peak_flops = 0;                       // the compute peak of its dtype; 0: none known
  double bytes_per_s = 0;                      // the memory roof's bandwidth; 0: none (no slope)
  std::optional<accounting::HeldRoof> memory;  // its own memory roof; nullopt: the single slope
  double attainable = 0;                       // FLOP/s: min(peak, intensity x bandwidth)

  // The compute peak binds at this intensity (intensity x bandwidth >= peak).
  bool compute_bound() const { return peak_flops > 0 && attainable >= peak_flops; }
  // The memory roof: "in_place DRAM 38.2 GB/s", or "single slope 32 GB/s"; "" without one.
  std::string MemoryLabel() const;
};

// The roof of case `c` at `intensity` (FLOP/byte, > 0); nullopt when neither a compute peak nor
// a memory roof is known for it.
std::optional<PointRoof> PointRoofFor(const RoofChoice& roofs, const Case& c, double intensity);

}  // namespace report

#endif  // TOOLS_REPORT_POINT_ROOF_H_
