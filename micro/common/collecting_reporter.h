// A Google Benchmark reporter for tests: keeps every run (name, error, counters, label) so a
// test can assert on what each case produced, and prints nothing.
#ifndef MICRO_COMMON_COLLECTING_REPORTER_H_
#define MICRO_COMMON_COLLECTING_REPORTER_H_

#include <map>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"

namespace micro {

struct CollectedRun {
  std::string
      name;  // full run name, e.g. "BM_Matmul/cpu/onednn/fp32/M:64/K:64/N:64/min_time:0.010/manual_time"
  bool error = false;
  std::string error_message;
  std::string label;
  int64_t iterations = 0;
  std::map<std::string, double> counters;
};

class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      CollectedRun c;
      c.name = r.benchmark_name();
      c.error = r.error_occurred;
      c.error_message = r.error_message;
      c.label = r.report_label;
      c.iterations = r.iterations;
      for (const auto& [k, v] : r.counters) c.counters[k] = v.value;
      runs_.push_back(c);
    }
  }
  const std::vector<CollectedRun>& runs() const { return runs_; }

 private:
  std::vector<CollectedRun> runs_;
};

}  // namespace micro

#endif  // MICRO_COMMON_COLLECTING_REPORTER_H_
