// SvgWriter: escaping, number format, elements, groups, a well-formed document.
#include "tools/report/svg_writer.h"

#include <cmath>
#include <regex>

#include "gtest/gtest.h"

namespace report {
namespace {

// Tags open and close in order (no attribute values containing '<' or '>' survive escaping).
bool Balanced(const std::string& xml) {
  std::vector<std::string> stack;
  std::regex tag("<(/?)([a-zA-Z]+)[^>]*?(/?)>");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), tag); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    if (m[3] == "/") continue;
    if (m[1] == "/") {
      if (stack.empty() || stack.back() != m[2]) return false;
      stack.pop_back();
    } else {
      stack.push_back(m[2]);
    }
  }
  return stack.empty();
}

TEST(XmlEscape, EscapesMarkup) {
  EXPECT_EQ(XmlEscape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(XmlEscape("256\xc2\xb3"), "256\xc2\xb3");  // UTF-8 passes through
}

TEST(Coord, TwoDecimalsTrimmed) {
  EXPECT_EQ(Coord(12), "12");
  EXPECT_EQ(Coord(12.5), "12.5");
  EXPECT_EQ(Coord(12.345), "12.35");
  EXPECT_EQ(Coord(-0.001), "0");
  EXPECT_EQ(Coord(std::nan("")), "0");
  EXPECT_EQ(Coord(INFINITY), "0");
}

TEST(SvgWriter, WritesElements) {
  SvgWriter svg(200, 100, {{"id", "chart"}});
  svg.Rect(0, 0, 200, 100, {{"fill", "#fff"}});
  svg.Line(1, 2, 3, 4, {{"stroke", "#000"}});
  svg.Circle(10.25, 20, 4, {{"fill", "#0072b2"}}, "case <1> & more");
  svg.BeginGroup({{"class", "labels"}});
  svg.Text(5, 6, "x < y", {}, "middle");
  svg.EndGroup();
  svg.Polyline({{0, 0}, {10, 10}}, {{"stroke", "#111"}});
  svg.Polyline({{0, 0}}, {});  // one point: nothing
  svg.Comment("a -- b");
  const std::string out = svg.Finish();
  EXPECT_EQ(out.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"100\" viewBox=\"0 0 "
                      "200 100\" id=\"chart\">",
                      0),
            0u)
      << out;
  EXPECT_NE(out.find("<rect x=\"0\" y=\"0\" width=\"200\" height=\"100\" fill=\"#fff\"/>"), std::string::npos)
      << out;
  EXPECT_NE(out.find("<line x1=\"1\" y1=\"2\" x2=\"3\" y2=\"4\" stroke=\"#000\"/>"), std::string::npos);
  EXPECT_NE(out.find("<circle cx=\"10.25\" cy=\"20\" r=\"4\" fill=\"#0072b2\"><title>case &lt;1&gt; &amp; "
                     "more</title></circle>"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("<text x=\"5\" y=\"6\" text-anchor=\"middle\">x &lt; y</text>"), std::string::npos)
      << out;
  EXPECT_NE(out.find("<polyline points=\"0,0 10,10\" fill=\"none\" stroke=\"#111\"/>"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("points=\"0,0\""), std::string::npos);
  EXPECT_NE(out.find("<!-- a - - b -->"), std::string::npos);
  EXPECT_EQ(out.substr(out.size() - 7), "</svg>\n");
  EXPECT_TRUE(Balanced(out)) << out;
}

TEST(SvgWriter, CallerAttributesOverrideDefaultsOnce) {
  SvgWriter svg(10, 10, {{"id", "a"}, {"id", "b"}});
  svg.Polyline({{0, 0}, {1, 1}}, {{"fill", "#f00"}, {"stroke", "#000"}});
  const std::string out = svg.Finish();
  EXPECT_NE(out.find("<polyline points=\"0,0 1,1\" fill=\"#f00\" stroke=\"#000\"/>"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("fill=\"none\""), std::string::npos) << out;
  EXPECT_NE(out.find(" id=\"b\">"), std::string::npos) << out;
  EXPECT_EQ(out.find("id=\"a\""), std::string::npos) << out;
  EXPECT_EQ(MergeAttrs({{"x", "1"}, {"y", "2"}, {"x", "3"}}), (Attrs{{"x", "3"}, {"y", "2"}}));
}

TEST(SvgWriter, ClosesOpenGroupsAndNegativeSizes) {
  SvgWriter svg(10, 10);
  svg.BeginGroup();
  svg.BeginGroup();
  svg.Rect(0, 0, -5, 3);  // negative width clamps to 0
  const std::string out = svg.Finish();
  EXPECT_TRUE(Balanced(out)) << out;
  EXPECT_NE(out.find("width=\"0\" height=\"3\""), std::string::npos) << out;
  EXPECT_EQ(svg.Finish(), out);  // idempotent
}

}  // namespace
}  // namespace report
