// gpt_serve --find_max_rate: the highest request rate whose run meets the latency limits, found by
// bisection between a low and a high rate (MLPerf's server scenario searches its target QPS the
// same way). The trial at a rate is a callback (gpt_serve: a full run of --requests requests at
// that rate, stopped past --trial_max_s, judged PASS when every request finished and the p99s
// are within the limits), so the search is tested with a synthetic one.
//
// Order: the low bound first (if it fails, no rate in the range meets the limits and the search
// ends), then the high bound (if it passes, the limits hold at the top of the range: the answer is
// the high bound, and a higher range may find more), then `steps` bisections of [pass, fail] at
// their midpoint. The answer is the highest passing rate tried, with its run's figures; the
// lowest failing one bounds it from above. At most 2 + steps trials.
#ifndef MACRO_SERVE_FIND_H_
#define MACRO_SERVE_FIND_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "macro/serve_report.h"

namespace macro {

struct RateTrial {
  double rate = 0;
  bool pass = false;
  ServeSummary summary;
  std::vector<LimitCheck> checks;
  bool stopped = false;  // by the time limit
  double wall_s = 0;
};

struct FindResult {
  bool found = false;           // some rate passed
  double rate = 0;              // the highest passing rate (found)
  double failed_rate = 0;       // the lowest failing rate above it; 0: none (the high bound passed)
  std::vector<RateTrial> trials;  // in the order run
  const RateTrial* best() const;  // the trial at `rate` (found), else nullptr
};

// 0 < low < high; steps >= 0. trial's errors end the search.
absl::StatusOr<FindResult> FindMaxRate(double low, double high, int steps,
                                       const std::function<absl::StatusOr<RateTrial>(double rate)>& trial);

}  // namespace macro

#endif  // MACRO_SERVE_FIND_H_
