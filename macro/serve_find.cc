// The bisection of --find_max_rate (serve_find.h).
#include "macro/serve_find.h"

#include "absl/strings/str_cat.h"

namespace macro {

const RateTrial* FindResult::best() const {
  if (!found) return nullptr;
  for (const RateTrial& t : trials) {
    if (t.pass && t.rate == rate) return &t;
  }
  return nullptr;
}

absl::StatusOr<FindResult> FindMaxRate(double low, double high, int steps,
                                       const std::function<absl::StatusOr<RateTrial>(double rate)>& trial) {
  if (!(low > 0) || !(high > low) || steps < 0) {
    return absl::InvalidArgumentError(absl::StrCat("rates ", low, " to ", high, ", ", steps, " steps"));
  }
  FindResult r;
  auto run = [&](double rate) -> absl::StatusOr<bool> {
    absl::StatusOr<RateTrial> t = trial(rate);
    if (!t.ok()) return t.status();
    t->rate = rate;
    r.trials.push_back(*t);
    return t->pass;
  };
  absl::StatusOr<bool> lo_pass = run(low);
  if (!lo_pass.ok()) return lo_pass.status();
  if (!*lo_pass) {
    r.failed_rate = low;
    return r;
  }
  r.found = true;
  r.rate = low;
  absl::StatusOr<bool> hi_pass = run(high);
  if (!hi_pass.ok()) return hi_pass.status();
  if (*hi_pass) {
    r.rate = high;
    return r;
  }
  double pass = low, fail = high;
  for (int i = 0; i < steps; ++i) {
    const double mid = 0.5 * (pass + fail);
    absl::StatusOr<bool> ok = run(mid);
    if (!ok.ok()) return ok.status();
    (*ok ? pass : fail) = mid;
  }
  r.rate = pass;
  r.failed_rate = fail;
  return r;
}

}  // namespace macro
