// What tools/gate prints: a fixed-width table for people (stdout) and a markdown summary
// (written to a file, e.g. for a CI job summary). Both list every case with its status,
// medians, relative change and one-sided p-value, then the counts, the warnings, the baseline
// file and, when something regressed, the command that accepts the new numbers.
#ifndef TOOLS_GATE_GATE_REPORT_H_
#define TOOLS_GATE_GATE_REPORT_H_

#include <string>

#include "tools/gate/gate_compare.h"

namespace gate {

struct ReportHeader {
  std::string key;  // MachineKey::Describe()
  std::string suite;
  std::string baseline_path;
  bool baseline_exists = false;
  std::string metric;  // "real_time", "tokens_per_second (higher is better)"
  double threshold = 0.05;
  double alpha = 0.05;
  double noise_floor = 1.0;
  bool holm = true;
  bool paired = false;            // an A/B run: the "baseline" is the base revision's side
  std::string paired_test;        // its test, for people
  std::string update_command;     // the command that records the current run as the baseline
  std::string remeasure_command;  // bench + gate --update, measuring afresh (may be empty)
};

std::string FormatTable(const ReportHeader& header, const Comparison& cmp, bool metric_is_time);
std::string FormatMarkdown(const ReportHeader& header, const Comparison& cmp, bool metric_is_time);

// "1.234 ms", "56.7 us"; or %.4g for a counter.
std::string FormatValue(double v, bool is_time);

}  // namespace gate

#endif  // TOOLS_GATE_GATE_REPORT_H_
