// The memory roofs on the roofline: lines, labels along them, legend (roofline_memory.h).
#include "tools/report/roofline_memory.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/report/units.h"

namespace report {

namespace {

constexpr double kLabelFont = 11;

// Where a slope is visible: [lo, hi] in FLOP/byte; lo >= hi when it is not.
std::pair<double, double> Extent(double bytes_per_s, const RooflineAxes& ax, double top_flops) {
  const double lo = std::max(ax.xd.lo, ax.yd.lo / bytes_per_s);
  double hi = std::min(ax.xd.hi, ax.yd.hi / bytes_per_s);
  if (top_flops > 0) hi = std::min(hi, top_flops / bytes_per_s);
  return {lo, hi};
}

std::string CapacityText(double bytes) {
  if (bytes >= (1 << 20)) return absl::StrFormat("%.3g MiB", bytes / (1 << 20));
  return absl::StrFormat("%.3g KiB", bytes / 1024);
}

}  // namespace

SlopeStyle StyleOf(const MemorySlope& slope) {
  if (slope.level_index >= 0) {
    static const char* const kLevels[] = {"#2e7d32", "#283593", "#ad1457", "#6d4c41"};
    return {kLevels[std::min(slope.level_index, 3)], "7 4"};
  }
  switch (slope.kind) {
    case accounting::TrafficKind::kRead: return {"#00838f", ""};
    case accounting::TrafficKind::kWriteNt: return {"#8d6e63", ""};
    case accounting::TrafficKind::kCopy: return {"#546e7a", ""};
    case accounting::TrafficKind::kTriad: return {"#7b1fa2", ""};
    case accounting::TrafficKind::kInPlace: return {"#e65100", ""};
  }
  return {"#546e7a", ""};
}

void DrawMemorySlopes(const std::vector<MemorySlope>& slopes, const RooflineAxes& ax, double top_flops,
                      SvgWriter* svg) {
  svg->BeginGroup({{"class", "memory-roofs"}});
  for (const MemorySlope& s : slopes) {
    const auto [lo, hi] = Extent(s.bytes_per_s, ax, top_flops);
    if (!(lo < hi)) continue;
    const SlopeStyle style = StyleOf(s);
    Attrs a = {{"stroke", style.colour},
               {"stroke-width", "2"},
               {"fill", "none"},
               {"class", "memory-roof"},
               {"data-kind", std::string(accounting::TrafficKindName(s.kind))},
               {"data-level", s.level},
               {"data-bytes-per-s", absl::StrFormat("%.17g", s.bytes_per_s)}};
    if (!style.dash.empty()) a.push_back({"stroke-dasharray", style.dash});
    svg->Polyline({{ax.sx(lo), ax.sy(lo * s.bytes_per_s)}, {ax.sx(hi), ax.sy(hi * s.bytes_per_s)}}, a);
  }
  svg->EndGroup();
}

namespace {

// One line to label: its bandwidth, text, colour and class.
struct SlopeText {
  double bytes_per_s;
  std::string text, colour, cls;
};

// Labels along the slopes, which are parallel on log-log axes (one decade up per decade right).
// A label's place: a fraction of its slope's visible length, and the distance of its baseline
// above the line (negative: below), in pixels along the normal.
class SlopeLabeller {
 public:
  SlopeLabeller(const RooflineAxes& ax, double top_flops, const std::vector<SlopeText>& lines)
      : ax_(ax), top_(top_flops), lines_(lines) {
    const double angle = std::atan2(ax.sy.PixelsPerDecade(), ax.sx.PixelsPerDecade());
    angle_deg_ = angle * 180 / M_PI;
    ux_ = std::cos(angle), uy_ = std::sin(angle);
    nx_ = uy_, ny_ = -ux_;  // unit normal, pointing above the slope (y grows downwards)
    // Two parallel slopes a decade of bandwidth apart lie this many pixels apart.
    gap_per_decade_ = std::fabs(ax.sy.PixelsPerDecade() * ux_);
  }

  // Places line `i`'s label at the first free spot: the distances nearest its line first (just
  // above it, just below it, then, unless `own_only`, beside each nearby line, so a bundle's
  // labels stack outside it), each from the slope's lower end. With `clear`, only where no
  // other line crosses the text. False when there is no spot.
  bool Place(size_t i, bool own_only, bool clear, LabelLayout* labels, SvgWriter* svg) const {
    const SlopeText& line = lines_[i];
    const auto [lo, hi] = Extent(line.bytes_per_s, ax_, top_);
    if (!(lo < hi)) return false;
    const double half = TextWidth(line.text, kLabelFont) / 2;
    for (double offset : Offsets(line)) {
      if ((own_only && offset != 5 && offset != -13) || (clear && Crossed(line, offset))) continue;
      for (double f = 0.06; f < 0.95; f += 0.03) {
        const double x = std::pow(10.0, std::log10(lo) + f * (std::log10(hi) - std::log10(lo)));
        const double bx = ax_.sx(x) + offset * nx_, by = ax_.sy(x * line.bytes_per_s) + offset * ny_;
        std::vector<Box> area;  // the text as small boxes along it
        for (double t = -half; t <= half + 0.1; t += 4) {
          const double cx = bx + t * ux_ + 4 * nx_, cy = by + t * uy_ + 4 * ny_;
          area.push_back({cx - 5.5, cy - 5.5, cx + 5.5, cy + 5.5});
        }
        if (!std::all_of(area.begin(), area.end(), [&](const Box& b) { return labels->Free(b); })) continue;
        for (const Box& b : area) labels->AddBox(b);
        svg->Text(bx, by, line.text,
                  WithHalo({{"font-size", absl::StrCat(kLabelFont)},
                            {"font-weight", "bold"},
                            {"fill", line.colour},
                            {"class", line.cls},
                            {"transform",
                             absl::StrFormat("rotate(%.2f %s %s)", angle_deg_, Coord(bx), Coord(by))}}),
                  "middle");
        return true;
      }
    }
    return false;
  }

 private:
  // Signed distance (pixels along the normal) from `line` up to the line of `bw`.
  double Distance(const SlopeText& line, double bw) const {
    return std::log10(bw / line.bytes_per_s) * gap_per_decade_;
  }

  // Where the baseline may go: just above or below the line, or just above or below another
  // line within 45 px; nearest first.
  std::vector<double> Offsets(const SlopeText& line) const {
    std::vector<double> out = {5, -13};
    for (const SlopeText& other : lines_) {
      const double d = Distance(line, other.bytes_per_s);
      if (d != 0 && std::fabs(d) < 45) out.insert(out.end(), {d + 5, d - 13});
    }
    std::stable_sort(out.begin(), out.end(), [](double a, double b) { return std::fabs(a) < std::fabs(b); });
    return out;
  }

  // Another line within the band the text takes at `offset` (from 4 px under its baseline to
  // 12 px over it).
  bool Crossed(const SlopeText& line, double offset) const {
    for (const SlopeText& other : lines_) {
      const double d = Distance(line, other.bytes_per_s);
      if (d != 0 && d > offset - 4 && d < offset + 12) return true;
    }
    return false;
  }

  const RooflineAxes& ax_;
  double top_;
  const std::vector<SlopeText>& lines_;
  double angle_deg_, ux_, uy_, nx_, ny_, gap_per_decade_;
};

}  // namespace

std::string InlineText(const MemorySlope& s) {
  if (s.level_index >= 0) return s.Label();
  return absl::StrFormat("%s %.1f GB/s", accounting::TrafficKindName(s.kind), s.bytes_per_s / 1e9);
}

int DrawMemorySlopeLabels(const std::vector<MemorySlope>& slopes, const RooflineAxes& ax, double top_flops,
                          double single_slope, LabelLayout* labels, SvgWriter* svg) {
  std::vector<SlopeText> lines;
  for (const MemorySlope& s : slopes) {
    lines.push_back({s.bytes_per_s, InlineText(s), StyleOf(s).colour, "memory-roof-label"});
  }
  if (single_slope > 0) {
    lines.push_back({single_slope, absl::StrCat("single slope ", FormatSi(single_slope, "B/s")),
                     kSingleSlopeInk, "single-slope-label"});
  }
  const SlopeLabeller labeller(ax, top_flops, lines);
  svg->BeginGroup({{"class", "memory-roof-labels"}});
  // Each beside its own line where no other line crosses the text; then stacked beside a
  // neighbour, still clear; then anywhere free of labels and points (the text's halo keeps it
  // readable across a line).
  std::vector<bool> placed(lines.size(), false);
  for (auto [own_only, clear] : {std::pair{true, true}, {false, true}, {false, false}}) {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!placed[i]) placed[i] = labeller.Place(i, own_only, clear, labels, svg);
    }
  }
  svg->EndGroup();
  return static_cast<int>(std::count(placed.begin(), placed.end(), false));
}

double DrawMemoryLegend(const std::vector<MemorySlope>& slopes, double x, double y, SvgWriter* svg) {
  if (slopes.empty()) return y;
  svg->Text(x, y, "Memory roofs (per traffic kind)",
            {{"font-size", "12"}, {"font-weight", "bold"}, {"fill", kInk}});
  y += 19;
  for (const MemorySlope& s : slopes) {
    const SlopeStyle style = StyleOf(s);
    const std::string text = s.level_index < 0
                                 ? s.Label()
                                 : absl::StrFormat("%s %s (%s) %.1f GB/s", s.level,
                                                   "\xe2\x89\xa4 " + CapacityText(s.capacity_bytes),
                                                   accounting::TrafficKindName(s.kind), s.bytes_per_s / 1e9);
    DrawLegendEntry(svg, x, y, style.colour, text, true, style.dash);
    y += 19;
  }
  return y;
}

}  // namespace report
