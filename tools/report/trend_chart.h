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

// The series of `metric` (tools/gate's syntax: real_time, cpu_time, NAME, NAME:lower) in the
// database, each with its change points. NotFound when the file does not exist or no series has
// the metric; errors name the file.
absl::StatusOr<std::vector<TrendSeries>> LoadTrends(const std::string& db_path, const std::string& metric);

// The chart; `chart_id` names it in the root's data-chart attribute.
std::string DrawTrend(const TrendSeries& s, const std::string& chart_id);

}  // namespace report

#endif  // TOOLS_REPORT_TREND_CHART_H_
