// Per-op timing for `--profile`: nested begin/end spans on one timeline, written as a Chrome
// trace (chrome://tracing, Perfetto) and summarised as the top ops by self time.
//
// The recorder only stores spans; who measures them is the caller's business (host steady_clock
// on CPU, CUDA events on GPU, converted to microseconds on one timeline). Self time = a span's
// duration minus the durations of the spans directly nested in it.
#ifndef MACRO_OP_TRACE_H_
#define MACRO_OP_TRACE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace macro {

struct TraceSpan {
  std::string name;
  std::string category;  // "step", "phase", "op"
  double start_us = 0;
  double dur_us = 0;
  int depth = 0;        // nesting depth when it began
  double child_us = 0;  // summed duration of directly nested spans
  double self_us() const { return dur_us - child_us; }
};

struct OpSummary {
  std::string name;
  int calls = 0;
  double self_us = 0;
  double total_us = 0;
  double share = 0;  // self_us / sum of all self time
};

class OpTrace {
 public:
  // Opens a span at `start_us`; spans nest strictly (End closes the innermost).
  void Begin(std::string name, std::string category, double start_us);
  // Closes the innermost open span; an End without a Begin is ignored and counted.
  void End(double end_us);

  const std::vector<TraceSpan>& spans() const { return spans_; }
  int open_spans() const { return static_cast<int>(open_.size()); }
  int unmatched_ends() const { return unmatched_ends_; }
  void Clear();

  // Ops of the given category summed by name, largest self time first.
  std::vector<OpSummary> TopBySelfTime(const std::string& category, int limit) const;

  // Chrome trace JSON ("traceEvents" of complete "X" events), written atomically (temp + rename).
  absl::Status WriteChromeTrace(const std::string& path, const std::string& process_name) const;

 private:
  std::vector<TraceSpan> spans_;
  std::vector<size_t> open_;  // indices into spans_
  int unmatched_ends_ = 0;
};

}  // namespace macro

#endif  // MACRO_OP_TRACE_H_
