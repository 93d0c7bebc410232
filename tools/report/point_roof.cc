// The roof of one point: compute peak, its own memory roof or the single slope (point_roof.h).
#include "tools/report/point_roof.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "tools/report/units.h"

namespace report {

std::string PointRoof::MemoryLabel() const {
  if (memory) return memory->Label();
  if (bytes_per_s > 0) return absl::StrCat("single slope ", FormatSi(bytes_per_s, "B/s"));
  return "";
}

std::optional<PointRoof> PointRoofFor(const RoofChoice& roofs, const Case& c, double intensity) {
  PointRoof p;
  if (const Roof* r = RoofFor(roofs, c.name)) {
    p.peak_flops = r->peak_flops;
    p.bytes_per_s = r->bandwidth;
  }
  p.memory = MemoryRoofFor(roofs.memory, c);
  if (p.memory) p.bytes_per_s = p.memory->bytes_per_s;
  if (!(p.peak_flops > 0) && !(p.bytes_per_s > 0)) return std::nullopt;
  // min(peak, I x bandwidth), with either side absent taken as no bound.
  if (p.bytes_per_s > 0 && p.peak_flops > 0) {
    p.attainable = std::min(p.peak_flops, intensity * p.bytes_per_s);
  } else {
    p.attainable = p.peak_flops > 0 ? p.peak_flops : intensity * p.bytes_per_s;
  }
  return p;
}

}  // namespace report
