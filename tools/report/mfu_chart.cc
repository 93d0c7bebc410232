// The MFU loss breakdown: a 100% stacked bar and one bar per part.
#include "tools/report/mfu_chart.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/report/chart_frame.h"
#include "tools/report/family.h"
#include "tools/report/svg_writer.h"

namespace report {

std::string DrawMfuBreakdown(const MfuBreakdown& b) {
  constexpr double kWidth = 980;
  const double rows = static_cast<double>(b.parts.size());
  const double height = 150 + 26 * rows + 20;
  double sum = 0;
  for (const auto& [name, pct] : b.parts) sum += pct;
  const double full = std::max(100.0, sum);

  PlotRect bar{92, 84, kWidth - 92 - 60, 34};
  SvgWriter svg(kWidth, height, {{"id", "mfu-breakdown"}, {"font-family", kFont}});
  svg.Rect(0, 0, kWidth, height, {{"fill", "#ffffff"}});
  std::string sub = absl::StrCat(b.case_name.empty() ? "" : StripRunSuffixes(b.case_name) + ": ",
                                 "where the step time goes, in percent of it (the first part is the MFU)");
  if (std::abs(sum - 100) > 1)
    absl::StrAppend(&sub, absl::StrFormat("; the parts add up to %.1f%%, not 100%%", sum));
  DrawTitle(&svg, 16, 26, "MFU loss breakdown", {sub});

  // Stacked bar.
  double x = bar.x;
  for (size_t i = 0; i < b.parts.size(); ++i) {
    const auto& [name, pct] = b.parts[i];
    const double w = bar.w * pct / full;
    const std::string colour = i == 0 ? "#009e73" : FamilyColour(static_cast<int>(i) + (i >= 2 ? 1 : 0));
    svg.Rect(x, bar.y, w, bar.h, {{"fill", colour}, {"stroke", "#ffffff"}, {"stroke-width", "1"}});
    const std::string text = absl::StrFormat("%.1f%%", pct);
    if (TextWidth(text, 12) + 8 < w) {
      svg.Text(x + w / 2, bar.y + bar.h / 2 + 4, text,
               {{"font-size", "12"}, {"font-weight", "bold"}, {"fill", "#ffffff"}}, "middle");
    }
    x += w;
  }
  svg.Rect(bar.x, bar.y, bar.w * 100 / full, bar.h, {{"fill", "none"}, {"stroke", "#9aa5b1"}});
  svg.Text(bar.x, bar.bottom() + 16, "0%", {{"font-size", "11"}, {"fill", kMutedInk}}, "middle");
  svg.Text(bar.x + bar.w * 100 / full, bar.bottom() + 16, "100% of the step time",
           {{"font-size", "11"}, {"fill", kMutedInk}}, "end");

  // One row per part.
  const double label_x = 300, bar_x = 310, bar_w = kWidth - bar_x - 120;
  double y = bar.bottom() + 44;
  for (size_t i = 0; i < b.parts.size(); ++i) {
    const auto& [name, pct] = b.parts[i];
    const std::string colour = i == 0 ? "#009e73" : FamilyColour(static_cast<int>(i) + (i >= 2 ? 1 : 0));
    svg.Text(label_x, y + 13, name, {{"font-size", "12.5"}, {"fill", kInk}}, "end");
    svg.Rect(bar_x, y, bar_w, 18, {{"fill", kPlotBackground}});
    svg.Rect(bar_x, y, bar_w * pct / full, 18, {{"fill", colour}});
    svg.Text(bar_x + bar_w * pct / full + 6, y + 13, absl::StrFormat("%.1f%%", pct),
             {{"font-size", "12.5"}, {"font-weight", i == 0 ? "bold" : "normal"}, {"fill", kInk}});
    y += 26;
  }
  return svg.Finish();
}

}  // namespace report
