// Greedy label placement around points.
#include "tools/report/label_layout.h"

namespace report {

void LabelLayout::AddObstacle(double cx, double cy, double r) {
  taken_.push_back({cx - r, cy - r, cx + r, cy + r});
}

void LabelLayout::AddLineObstacle(double cx, double cy, double r) {
  lines_.push_back({cx - r, cy - r, cx + r, cy + r});
}

bool LabelLayout::Free(const Box& b) const {
  if (b.x0 < bounds_.x + 2 || b.x1 > bounds_.right() - 2 || b.y0 < bounds_.y + 2 ||
      b.y1 > bounds_.bottom() - 2) {
    return false;
  }
  for (const Box& t : taken_) {
    if (t.Overlaps(b)) return false;
  }
  return true;
}

std::optional<LabelSpot> LabelLayout::Place(double cx, double cy, double r, const std::string& text) {
  const double w = TextWidth(text, font_px_), h = font_px_;
  const double gap = r + 3;
  struct Candidate {
    Box box;
    LabelSpot spot;
  };
  const double base = cy + h * 0.35;  // baseline that centres the text on the point
  const Candidate candidates[] = {
      {{cx + gap, cy - h / 2, cx + gap + w, cy + h / 2}, {cx + gap, base, "start"}},
      {{cx - gap - w, cy - h / 2, cx - gap, cy + h / 2}, {cx - gap, base, "end"}},
      {{cx - w / 2, cy - gap - h, cx + w / 2, cy - gap}, {cx, cy - gap - 2, "middle"}},
      {{cx - w / 2, cy + gap, cx + w / 2, cy + gap + h}, {cx, cy + gap + h - 2, "middle"}},
      {{cx + gap, cy - gap - h, cx + gap + w, cy - gap}, {cx + gap, cy - gap - 2, "start"}},
      {{cx + gap, cy + gap, cx + gap + w, cy + gap + h}, {cx + gap, cy + gap + h - 2, "start"}},
      {{cx - gap - w, cy - gap - h, cx - gap, cy - gap}, {cx - gap, cy - gap - 2, "end"}},
      {{cx - gap - w, cy + gap, cx - gap, cy + gap + h}, {cx - gap, cy + gap + h - 2, "end"}},
  };
  for (const Candidate& c : candidates) {
    const Box& b = c.box;
    if (!Free(b)) continue;
    bool on_line = false;
    for (const Box& t : lines_) on_line = on_line || t.Overlaps(b);
    if (on_line) continue;
    taken_.push_back(b);
    return c.spot;
  }
  return std::nullopt;
}

}  // namespace report
