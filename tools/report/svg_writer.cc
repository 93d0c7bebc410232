// SvgWriter: elements appended to one string, escaped, with fixed-precision coordinates.
#include "tools/report/svg_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace report {

std::string XmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string Coord(double v) {
  if (!std::isfinite(v)) return "0";  // never emit "nan" into SVG; callers skip such points
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

SvgWriter::SvgWriter(double width, double height, const Attrs& root_attrs) {
  absl::StrAppend(&out_, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"", Coord(width), "\" height=\"",
                  Coord(height), "\" viewBox=\"0 0 ", Coord(width), " ", Coord(height), "\"");
  for (const auto& [k, v] : MergeAttrs(root_attrs)) absl::StrAppend(&out_, " ", k, "=\"", XmlEscape(v), "\"");
  out_ += ">\n";
}

Attrs MergeAttrs(const Attrs& attrs) {
  Attrs out;
  for (const auto& [k, v] : attrs) {
    bool replaced = false;
    for (auto& [ok, ov] : out) {
      if (ok == k) {
        ov = v;
        replaced = true;
        break;
      }
    }
    if (!replaced) out.push_back({k, v});
  }
  return out;
}

void SvgWriter::Open(const std::string& tag, const Attrs& attrs, bool self_close) {
  absl::StrAppend(&out_, std::string(open_groups_ + 1, ' '), "<", tag);
  for (const auto& [k, v] : MergeAttrs(attrs)) absl::StrAppend(&out_, " ", k, "=\"", XmlEscape(v), "\"");
  out_ += self_close ? "/>\n" : ">";
}

void SvgWriter::Element(const std::string& tag, const Attrs& attrs, const std::string& title) {
  if (title.empty()) {
    Open(tag, attrs, true);
    return;
  }
  Open(tag, attrs, false);
  absl::StrAppend(&out_, "<title>", XmlEscape(title), "</title></", tag, ">\n");
}

void SvgWriter::Rect(double x, double y, double w, double h, const Attrs& attrs, const std::string& title) {
  Attrs a = {{"x", Coord(x)},
             {"y", Coord(y)},
             {"width", Coord(std::max(0.0, w))},
             {"height", Coord(std::max(0.0, h))}};
  a.insert(a.end(), attrs.begin(), attrs.end());
  Element("rect", a, title);
}

void SvgWriter::Line(double x1, double y1, double x2, double y2, const Attrs& attrs) {
  Attrs a = {{"x1", Coord(x1)}, {"y1", Coord(y1)}, {"x2", Coord(x2)}, {"y2", Coord(y2)}};
  a.insert(a.end(), attrs.begin(), attrs.end());
  Open("line", a, true);
}

namespace {
std::string PointList(const std::vector<std::pair<double, double>>& points) {
  std::string s;
  for (const auto& [x, y] : points) {
    if (!s.empty()) s += ' ';
    absl::StrAppend(&s, Coord(x), ",", Coord(y));
  }
  return s;
}
}  // namespace

void SvgWriter::Polyline(const std::vector<std::pair<double, double>>& points, const Attrs& attrs) {
  if (points.size() < 2) return;
  Attrs a = {{"points", PointList(points)}, {"fill", "none"}};
  a.insert(a.end(), attrs.begin(), attrs.end());
  Open("polyline", a, true);
}

void SvgWriter::Polygon(const std::vector<std::pair<double, double>>& points, const Attrs& attrs,
                        const std::string& title) {
  if (points.size() < 3) return;
  Attrs a = {{"points", PointList(points)}};
  a.insert(a.end(), attrs.begin(), attrs.end());
  Element("polygon", a, title);
}

void SvgWriter::Circle(double cx, double cy, double r, const Attrs& attrs, const std::string& title) {
  Attrs a = {{"cx", Coord(cx)}, {"cy", Coord(cy)}, {"r", Coord(r)}};
  a.insert(a.end(), attrs.begin(), attrs.end());
  Element("circle", a, title);
}

void SvgWriter::Text(double x, double y, const std::string& text, const Attrs& attrs,
                     const std::string& anchor) {
  Attrs a = {{"x", Coord(x)}, {"y", Coord(y)}};
  if (anchor != "start") a.push_back({"text-anchor", anchor});
  a.insert(a.end(), attrs.begin(), attrs.end());
  Open("text", a, false);
  absl::StrAppend(&out_, XmlEscape(text), "</text>\n");
}

void SvgWriter::BeginGroup(const Attrs& attrs) {
  Open("g", attrs, false);
  out_ += "\n";
  ++open_groups_;
}

void SvgWriter::EndGroup() {
  if (open_groups_ == 0) return;
  --open_groups_;
  absl::StrAppend(&out_, std::string(open_groups_ + 1, ' '), "</g>\n");
}

void SvgWriter::Comment(const std::string& text) {
  absl::StrAppend(&out_, " <!-- ", absl::StrReplaceAll(text, {{"--", "- -"}}), " -->\n");
}

std::string SvgWriter::Finish() {
  if (finished_) return out_;
  while (open_groups_ > 0) EndGroup();
  out_ += "</svg>\n";
  finished_ = true;
  return out_;
}

}  // namespace report
