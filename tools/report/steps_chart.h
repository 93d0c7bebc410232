// steps.svg: the time of every step of a gpt_step run (its "step_times_s"), warm-up steps
// first on a shaded background, timed steps after, and the median of the timed steps as a
// dashed line. One chart per run shown: the first series of the first gpt_step case (a
// tools/bench run has one per round); the subtitle says how many more there are.
#ifndef TOOLS_REPORT_STEPS_CHART_H_
#define TOOLS_REPORT_STEPS_CHART_H_

#include <string>
#include <vector>

#include "tools/report/run_data.h"

namespace report {

struct StepsChart {
  std::string svg;      // empty when there is no series
  double median_s = 0;  // of the timed steps drawn
};

// Median of the finite values; 0 when none.
double MedianOf(std::vector<double> v);

StepsChart DrawSteps(const std::vector<StepSeries>& series);

}  // namespace report

#endif  // TOOLS_REPORT_STEPS_CHART_H_
