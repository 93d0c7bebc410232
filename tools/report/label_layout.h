// Greedy placement of point labels: each label tries the spots right, left, above and below
// its point and takes the first that overlaps no label or point placed before and stays inside
// the plot; a label with no free spot is left off (the point keeps its tooltip). Labels laid
// along a line (the roofline's memory roofs) ask Free for each stretch of their text instead.
#ifndef TOOLS_REPORT_LABEL_LAYOUT_H_
#define TOOLS_REPORT_LABEL_LAYOUT_H_

#include <optional>
#include <string>
#include <vector>

#include "tools/report/chart_frame.h"

namespace report {

struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool Overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

struct LabelSpot {
  double x = 0, y = 0;  // text baseline position
  std::string anchor;   // "start" or "end" or "middle"
};

class LabelLayout {
 public:
  LabelLayout(const PlotRect& bounds, double font_px) : bounds_(bounds), font_px_(font_px) {}
  // Reserves the area of a point of radius r (call for every point before placing labels).
  void AddObstacle(double cx, double cy, double r);
  void AddBox(const Box& b) { taken_.push_back(b); }
  // Reserves a stretch of a drawn line (radius r around (cx, cy)): Place keeps point labels off
  // it; Free does not look at it, since a label laid along one line may have to cross a line
  // parallel to it (its halo keeps it readable).
  void AddLineObstacle(double cx, double cy, double r);
  // True when `b` lies inside the bounds and overlaps no label, point or box reserved so far
  // (lines aside).
  bool Free(const Box& b) const;
  // A spot for `text` next to the point at (cx, cy) of radius r, reserved; nullopt if none.
  std::optional<LabelSpot> Place(double cx, double cy, double r, const std::string& text);

 private:
  PlotRect bounds_;
  double font_px_;
  std::vector<Box> taken_;
  std::vector<Box> lines_;
};

}  // namespace report

#endif  // TOOLS_REPORT_LABEL_LAYOUT_H_
