// Trend charts over a history database (trend_chart.h).
#include "tools/report/trend_chart.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/gate/gate_compare.h"
#include "tools/history/edivisive.h"
#include "tools/history/history_db.h"
#include "tools/report/chart_frame.h"
#include "tools/report/scale.h"
#include "tools/report/svg_writer.h"

namespace report {
namespace {

// A time axis in the unit that suits its largest value.
void TimeUnit(double max_s, double* factor, std::string* unit) {
  if (max_s >= 1) {
    *factor = 1, *unit = "s";
  } else if (max_s >= 1e-3) {
    *factor = 1e3, *unit = "ms";
  } else if (max_s >= 1e-6) {
    *factor = 1e6, *unit = "us";
  } else {
    *factor = 1e9, *unit = "ns";
  }
}

std::string Short(const std::string& commit) { return commit.substr(0, 10); }

// One series with its change points.
absl::StatusOr<TrendSeries> ReadSeries(history::HistoryDb& db, const history::SeriesKey& k,
                                       const gate::Metric& metric) {
  absl::StatusOr<std::vector<history::SeriesPoint>> pts =
      db.LoadSeries(k.machine_hash, k.case_name, k.metric);
  if (!pts.ok()) return pts.status();
  TrendSeries s;
  s.machine_hash = k.machine_hash;
  s.machine = k.machine_description;
  s.case_name = k.case_name;
  s.metric = k.metric;
  s.is_time = metric.is_time();
  std::vector<double> medians;
  for (const history::SeriesPoint& p : *pts) {
    TrendPoint t{p.commit, p.date, history::Median(p.values),
                 *std::min_element(p.values.begin(), p.values.end()),
                 *std::max_element(p.values.begin(), p.values.end())};
    medians.push_back(t.median);
    s.points.push_back(std::move(t));
  }
  absl::StatusOr<std::vector<history::ChangePoint>> cps = history::EDivisive(medians);
  if (!cps.ok()) return absl::InvalidArgumentError(absl::StrCat(k.case_name, ": ", cps.status().message()));
  s.changes = history::DescribeChanges(medians, *cps, metric.higher_is_better);
  return s;
}

}  // namespace

absl::StatusOr<TrendSet> LoadTrends(const std::string& db_path, const std::string& metric_text,
                                    const TrendSelection& select) {
  absl::StatusOr<gate::Metric> metric = gate::ParseMetric(metric_text);
  if (!metric.ok()) return absl::InvalidArgumentError(absl::StrCat("--history_metric: ", metric.status().message()));
  std::regex filter;
  try {
    filter = std::regex(select.case_regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return absl::InvalidArgumentError(absl::StrCat("--history_case='", select.case_regex,
                                                   "' is not a valid regular expression: ", e.what()));
  }
  struct stat st;
  if (stat(db_path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat("--history: no database at '", db_path, "'"));
  }
  absl::StatusOr<std::unique_ptr<history::HistoryDb>> db = history::HistoryDb::Open(db_path);
  if (!db.ok()) return db.status();
  absl::StatusOr<std::vector<history::SeriesKey>> keys = (*db)->ListSeries();
  if (!keys.ok()) return keys.status();
  TrendSet out;
  for (const history::SeriesKey& k : *keys) {
    if (k.metric != metric->name || !std::regex_search(k.case_name, filter)) continue;
    ++out.matching;
    if (out.series.size() >= static_cast<size_t>(std::max(select.max_series, 0))) continue;
    absl::StatusOr<TrendSeries> s = ReadSeries(**db, k, *metric);
    if (!s.ok()) return s.status();
    out.series.push_back(*std::move(s));
  }
  if (out.matching == 0) {
    return absl::NotFoundError(
        absl::StrCat("--history: no series in '", db_path, "' has the metric ", metric->name,
                     select.case_regex.empty() ? "" : " and a case matching --history_case='",
                     select.case_regex, select.case_regex.empty() ? "" : "'"));
  }
  return out;
}

std::string DrawTrend(const TrendSeries& s, const std::string& chart_id) {
  const int n = static_cast<int>(s.points.size());
  double factor = 1;
  std::string unit;
  if (s.is_time) {
    double max_s = 0;
    for (const TrendPoint& p : s.points) max_s = std::max(max_s, p.hi);
    TimeUnit(max_s, &factor, &unit);
  }
  double lo = INFINITY, hi = -INFINITY;
  for (const TrendPoint& p : s.points) {
    lo = std::min(lo, p.lo * factor);
    hi = std::max(hi, p.hi * factor);
  }
  if (!(hi > lo)) {
    lo -= 1;
    hi += 1;
  }
  const double pad = 0.12 * (hi - lo);
  lo = std::max(0.0, lo - pad);
  hi += pad;

  constexpr double kWidth = 980, kHeight = 400;
  PlotRect plot{92, 86, kWidth - 92 - 230, kHeight - 86 - 58};
  LinearScale sx(0.5, n + 0.5, plot.x, plot.right());
  LinearScale sy(lo, hi, plot.bottom(), plot.y);
  SvgWriter svg(kWidth, kHeight, ChartRootAttrs(plot, 0.5, n + 0.5, lo, hi, chart_id));
  svg.Rect(0, 0, kWidth, kHeight, {{"fill", "#ffffff"}});
  std::vector<std::string> sub = {
      absl::StrCat(s.metric, s.is_time ? " (lower is better)" : "", ", ", n, " runs on machine ", s.machine_hash)};
  if (n > 0) {
    sub.push_back(absl::StrCat("run 1: ", Short(s.points.front().commit), " ", s.points.front().date, "; run ", n,
                               ": ", Short(s.points.back().commit), " ", s.points.back().date));
  }
  DrawTitle(&svg, 16, 26, s.case_name, sub);
  DrawPlotBackground(&svg, plot);
  DrawLinearGridX(&svg, plot, sx);
  DrawLinearGridY(&svg, plot, sy);
  DrawFrameAndAxisTitles(&svg, plot, "Recorded run (date order)",
                         s.is_time ? absl::StrCat(s.metric, " (", unit, ")") : s.metric);
  for (const TrendChange& c : s.changes) {
    const double x = sx(c.index + 0.5);
    const std::string colour = c.worse ? kTrendWorse : kTrendBetter;
    svg.Line(x, plot.y, x, plot.bottom(),
             {{"stroke", colour}, {"stroke-width", "2"}, {"stroke-dasharray", "6 4"}, {"class", "change"}});
    svg.Text(x + 4, plot.y + 14,
             absl::StrFormat("%+.1f%% at %s (p = %.3g)", 100 * c.change, Short(s.points[c.index].commit), c.p_value),
             WithHalo({{"font-size", "11.5"}, {"font-weight", "bold"}, {"fill", colour}}));
  }
  for (int i = 0; i < n; ++i) {
    const TrendPoint& p = s.points[i];
    svg.Line(sx(i + 1), sy(p.lo * factor), sx(i + 1), sy(p.hi * factor),
             {{"stroke", "#8fb8d6"}, {"stroke-width", "3"}, {"class", "spread"}});
  }
  std::vector<std::pair<double, double>> line;
  for (int i = 0; i < n; ++i) line.push_back({sx(i + 1), sy(s.points[i].median * factor)});
  svg.Polyline(line, {{"stroke", kTrendMedian}, {"stroke-width", "1.5"}});
  for (int i = 0; i < n; ++i) {
    const TrendPoint& p = s.points[i];
    svg.Circle(sx(i + 1), sy(p.median * factor), 4.5,
               {{"fill", kTrendMedian}, {"stroke", "#ffffff"}, {"stroke-width", "1"}},
               absl::StrFormat("run %d: %s %s: median %.6g%s (%.6g..%.6g)", i + 1, p.commit, p.date,
                               p.median * factor, unit.empty() ? "" : " " + unit, p.lo * factor, p.hi * factor));
  }
  const double lx = plot.right() + 26, ly = plot.y + 8;
  DrawLegendEntry(&svg, lx, ly, kTrendMedian, "median of the run");
  DrawLegendEntry(&svg, lx, ly + 19, "#8fb8d6", "spread (min..max)", true);
  DrawLegendEntry(&svg, lx, ly + 38, kTrendWorse, "change for the worse", true, "6 4");
  DrawLegendEntry(&svg, lx, ly + 57, kTrendBetter, "change for the better", true, "6 4");
  return svg.Finish();
}

}  // namespace report
