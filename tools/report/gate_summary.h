// Reads the markdown summary //tools:gate writes (--summary=FILE, default <current>.gate.md;
// tools/gate/gate_report.h): its verdict line, its bullet lines (machine key, baseline, metric,
// calibration, counts) and the table of statuses, one row per case:
//
//   ## Performance gate: passed
//   - machine key: `...`, suite `quick`
//   | status | case | baseline | current | change | p | p raw | note |
//   | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |
//   | SAME | `BM_Matmul/cpu/fp32/M:256/...` | 1.2 ms | 1.21 ms | +0.8% | 0.41 | 0.41 |  |
//
// Columns are found by their header names, so added columns do not break the reader.
#ifndef TOOLS_REPORT_GATE_SUMMARY_H_
#define TOOLS_REPORT_GATE_SUMMARY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace report {

struct GateRow {
  std::string status;  // REGRESSED, IMPROVED, SAME, NEW, MISSING, UNVERIFIED
  std::string case_name;
  std::string baseline, current, change, p, note;
};

struct GateSummary {
  std::string file;
  std::string verdict;               // "passed", "1 regression(s)", "no baseline for this machine"
  std::vector<std::string> details;  // the bullet lines, markdown stripped
  std::vector<GateRow> rows;
};

// Errors name the file: unreadable, or no "## Performance gate" heading / status table.
absl::StatusOr<GateSummary> ParseGateSummary(const std::string& text, const std::string& path);
absl::StatusOr<GateSummary> ReadGateSummary(const std::string& path);

// The status of `case_name` (matched with and without Google Benchmark's run suffixes); "".
std::string GateStatusOf(const GateSummary& gate, const std::string& case_name);

}  // namespace report

#endif  // TOOLS_REPORT_GATE_SUMMARY_H_
