// What //macro:gpt_serve reports from a scheduler's records (serve_scheduler.h): TTFT, TPOT,
// queueing time and the prefill's compute apart (TTFT = queue + prefill), as p50/p90/p99 and
// mean (macro::Percentile: numpy's linear interpolation, as vLLM's benchmark_serving computes
// them); requests/s and output tokens/s over the run; the decode steps' batch sizes, as a
// histogram and as a timeline (one character per slice of the run: the time-weighted mean batch
// of its decode steps), which shows continuous batching rise and fall with the load; the
// MLPerf-style verdicts of the p99s against limits; and the --out JSON document.
#ifndef MACRO_SERVE_REPORT_H_
#define MACRO_SERVE_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "macro/serve_scheduler.h"
#include "nlohmann/json.hpp"

namespace macro {

struct LatencyStats {
  int n = 0;  // samples; 0: the figures are 0 and mean nothing
  double p50 = 0, p90 = 0, p99 = 0, mean = 0;
};
LatencyStats ComputeLatencyStats(const std::vector<double>& v);

struct ServeSummary {
  int requests = 0, finished = 0;
  int64_t output_tokens = 0;  // every token produced (the first from each prefill)
  double duration_s = 0;      // from t = 0 (the run's start) to the end of the last step
  double requests_per_s = 0, output_tokens_per_s = 0;  // finished requests, output tokens / duration
  LatencyStats ttft_ms, tpot_ms, queue_ms, prefill_ms;  // prefill: TTFT - queue (the compute)
  int prefill_steps = 0, decode_steps = 0;
  double prefill_busy_s = 0, decode_busy_s = 0;
  double mean_decode_batch = 0;         // time-weighted over the decode steps
  std::vector<int> batch_histogram;     // [b]: decode steps of batch b, b = 0 .. max_batch
  std::string timeline;                 // see BatchTimeline
};

// The summary of a run (finished or stopped by its deadline: the finished requests' latencies,
// every token produced). timeline_columns >= 1.
ServeSummary Summarize(const ServeScheduler& s, int timeline_columns);

// The decode batch over time: `columns` equal slices of [0, duration_s]; each the time-weighted
// mean batch of the decode steps within it, rounded, as a digit (max_batch <= 9) or scaled to 0-9
// of max_batch; '.' where no decode step ran (idle, or prefills only).
std::string BatchTimeline(const std::vector<ServeStep>& steps, double duration_s, int max_batch, int columns);

// The summary as the lines gpt_serve prints (a table of the latencies, throughput, steps, the
// histogram and the timeline with its legend).
std::vector<std::string> SummaryLines(const ServeSummary& s, int max_batch);

// One p99 against its limit (MLPerf's latency constraint): PASS when p99 <= limit.
struct LimitCheck {
  std::string name;  // "TTFT", "TPOT"
  double p99_ms = 0, limit_ms = 0;
  bool pass = false;
  std::string Line() const;  // "TTFT p99 812.3 ms <= limit 2000 ms: PASS"
};
// The checks of the limits given (> 0); a run that did not finish every request fails them all;
// a TPOT limit with no TPOT sample (every output 1 token) passes, said in the line.
std::vector<LimitCheck> CheckLimits(const ServeSummary& s, double ttft_limit_ms, double tpot_limit_ms);
bool AllPass(const std::vector<LimitCheck>& checks);

// {"summary": ..., "requests": [per request: id, arrival_s, prompt, output, slot, queue_s, ttft_s,
// tpot_s (null for one token), finish_s, tokens], "steps": [start_s, duration_s, kind, batch,
// tokens]}: seconds from the run's start.
nlohmann::ordered_json RunJson(const ServeScheduler& s, const ServeSummary& summary);
nlohmann::ordered_json SummaryJson(const ServeSummary& s);

}  // namespace macro

#endif  // MACRO_SERVE_REPORT_H_
