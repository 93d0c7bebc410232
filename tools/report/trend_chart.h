// trend_<N>.svg: one benchmark series over commits from a tools/history database (--history):
// per recorded run, in date order, the median of its repetitions (a dot, joined by a line) and
// their spread (a vertical bar from the smallest to the largest); each change point E-divisive
// found (tools/history/edivisive.h) as a dashed vertical line before the first run of the new
// segment, labelled with the commit, the change of the medians in % and the p-value, red when
// the change is for the worse, green when for the better.
#ifndef TOOLS_REPORT_TREND_CHART_H_
#define TOOLS_REPORT_TREND_CHART_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/history/edivisive.h"

namespace report {

inline constexpr char kTrendMedian[] = "#0072b2";
inline constexpr char kTrendWorse[] = "#d0021b";
inline constexpr char kTrendBetter[] = "#009e73";

struct TrendPoint {
  std::string commit, date;
  double median = 0, lo = 0, hi = 0;  // of the run's repetitions
};

// A change point with its segments' medians (tools/history/edivisive.h).
using TrendChange = history::SegmentChange;

struct TrendSeries {
  std::string machine_hash, machine, case_name, metric;
  bool is_time = true;  // seconds, lower is better; else a counter, higher is better unless :lower
  std::vector<TrendPoint> points;
  std::vector<TrendChange> changes;
};

// Which series a report draws: a database may hold 100k of them (a chart each), so at most
// `max_series`, the first in the database's order (machine, then case), among those whose case
// name matches `case_regex` (ECMAScript, searched, as tools/history detect --case; "" all).
inline constexpr int kDefaultMaxTrends = 50;  // --max_trends
inline constexpr int kMostMaxTrends = 1000;   // its largest value
struct TrendSelection {
  std::string case_regex;  // --history_case
  int max_series = kDefaultMaxTrends;
};

struct TrendSet {
  std::vector<TrendSeries> series;  // drawn: at most max_series
  size_t matching = 0;              // series of the metric matching case_regex, drawn or not
};

// The series of `metric` (tools/gate's syntax: real_time, cpu_time, NAME, NAME:lower) in the
// database that `select` picks, each with its change points; only those picked are read and
// analysed. NotFound when the file does not exist or no series has the metric (and a case
// matching case_regex); InvalidArgument for a bad regex; errors name the file or the flag.
absl::StatusOr<TrendSet> LoadTrends(const std::string& db_path, const std::string& metric,
                                    const TrendSelection& select = {});

// The chart; `chart_id` names it in the root's data-chart attribute.
std::string DrawTrend(const TrendSeries& s, const std::string& chart_id);

}  // namespace report

#endif  // TOOLS_REPORT_TREND_CHART_H_
