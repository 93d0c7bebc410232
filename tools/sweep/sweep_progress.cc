// TimeEstimate and FormatDuration (sweep_progress.h).
#include "tools/sweep/sweep_progress.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace sweep {

namespace {
constexpr double kGuessedStartupS = 20;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
}  // namespace

TimeEstimate::TimeEstimate(double guessed_flops_per_s)
    : guessed_rate_(guessed_flops_per_s > 0 ? guessed_flops_per_s : 50e9) {}

void TimeEstimate::AddRun(int point, double wall_s, double flops_per_step, double step_s, int steps_run) {
  if (!(wall_s > 0)) return;
  last_wall_[point] = wall_s;
  if (!(step_s > 0) || steps_run < 1 || !(flops_per_step > 0)) return;
  rates_.push_back(flops_per_step / step_s);
  startups_.push_back(std::max(0.0, wall_s - step_s * steps_run));
}

double TimeEstimate::RunSeconds(int point, double flops_per_step, int steps_run) const {
  if (auto it = last_wall_.find(point); it != last_wall_.end()) return it->second;
  const double rate = rates_.empty() ? guessed_rate_ : Median(rates_);
  const double startup = startups_.empty() ? kGuessedStartupS : Median(startups_);
  return startup + steps_run * flops_per_step / rate;
}

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "unknown";
  if (seconds < 60) return absl::StrFormat("%.0f s", seconds);
  const int minutes = static_cast<int>(std::lround(seconds / 60));
  if (minutes < 60) return absl::StrFormat("%d min", minutes);
  return absl::StrFormat("%d h %02d min", minutes / 60, minutes % 60);
}

}  // namespace sweep
