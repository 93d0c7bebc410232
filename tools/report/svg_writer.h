// A small SVG writer: the shapes and text the report's charts need, as one standalone SVG
// document (usable as a file and inline in HTML). Attribute values and text are XML-escaped;
// coordinates are written with two decimals, so the output is deterministic and compact.
//
//   SvgWriter svg(640, 400);
//   svg.Rect(0, 0, 640, 400, {{"fill", "#fff"}});
//   svg.Circle(100, 50, 4, {{"fill", "#d62728"}}, "tooltip text");
//   std::string text = svg.Finish();
#ifndef TOOLS_REPORT_SVG_WRITER_H_
#define TOOLS_REPORT_SVG_WRITER_H_

#include <string>
#include <utility>
#include <vector>

namespace report {

// Attributes in the order given: {{"fill", "#fff"}, {"stroke", "#000"}}.
using Attrs = std::vector<std::pair<std::string, std::string>>;

// Escapes & < > " ' for XML text and attribute values.
std::string XmlEscape(const std::string& s);

// `attrs` with each name once: a later value replaces an earlier one in its place (so a
// caller's attribute overrides a shape's default, and XML never sees a name twice).
Attrs MergeAttrs(const Attrs& attrs);

// "12.35": two decimals, trailing zeros trimmed ("12", "12.5"); "-0" written as "0".
std::string Coord(double v);

class SvgWriter {
 public:
  // width x height in CSS pixels; the viewBox is the same, so the drawing scales with its box.
  SvgWriter(double width, double height, const Attrs& root_attrs = {});

  // `title` (may be empty), as for Circle: a <title> child, the browser's tooltip.
  void Rect(double x, double y, double w, double h, const Attrs& attrs = {}, const std::string& title = "");
  void Line(double x1, double y1, double x2, double y2, const Attrs& attrs = {});
  // Points as (x, y) pairs; nothing is drawn for fewer than two.
  void Polyline(const std::vector<std::pair<double, double>>& points, const Attrs& attrs = {});
  void Polygon(const std::vector<std::pair<double, double>>& points, const Attrs& attrs = {},
               const std::string& title = "");
  // `title` (may be empty) becomes a <title> child: the browser's tooltip.
  void Circle(double cx, double cy, double r, const Attrs& attrs = {}, const std::string& title = "");
  // anchor: "start", "middle" or "end" (text-anchor).
  void Text(double x, double y, const std::string& text, const Attrs& attrs = {},
            const std::string& anchor = "start");
  // A <g> group; every BeginGroup needs its EndGroup before Finish.
  void BeginGroup(const Attrs& attrs = {});
  void EndGroup();
  // A raw comment (for tests and readers of the file); "--" is replaced.
  void Comment(const std::string& text);

  // The document; the writer must not be used afterwards. Unclosed groups are closed.
  std::string Finish();

 private:
  void Open(const std::string& tag, const Attrs& attrs, bool self_close);
  // The element, self-closed, or with a <title> child when `title` is not empty.
  void Element(const std::string& tag, const Attrs& attrs, const std::string& title);
  std::string out_;
  int open_groups_ = 0;
  bool finished_ = false;
};

}  // namespace report

#endif  // TOOLS_REPORT_SVG_WRITER_H_
