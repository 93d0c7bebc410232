// The sweep's running time estimate. A point that has run takes what its last run took. One
// that has not: a start-up (the probes, the model, the GEMM rates not cached yet; the mean of
// the runs so far) plus its steps' FLOPs at the median rate of the runs so far. Before any run
// finishes the rate is a guess (half the --ceilings fp32 peak, else 50 GFLOP/s) and the start-up
// 20 s. A median, not a sum: one run slowed by the machine's neighbours does not move it.
#ifndef TOOLS_SWEEP_SWEEP_PROGRESS_H_
#define TOOLS_SWEEP_SWEEP_PROGRESS_H_

#include <map>
#include <string>
#include <vector>

namespace sweep {

class TimeEstimate {
 public:
  explicit TimeEstimate(double guessed_flops_per_s);
  // A finished run of `point`: its wall time, FLOPs per step, its timed steps' mean seconds, and
  // how many steps it ran in all (warm-up included).
  void AddRun(int point, double wall_s, double flops_per_step, double step_s, int steps_run);
  // Seconds the next run of `point` is expected to take.
  double RunSeconds(int point, double flops_per_step, int steps_run) const;

 private:
  double guessed_rate_;
  std::vector<double> rates_, startups_;
  std::map<int, double> last_wall_;
};

// "1 h 05 min", "12 min", "40 s".
std::string FormatDuration(double seconds);

}  // namespace sweep

#endif  // TOOLS_SWEEP_SWEEP_PROGRESS_H_
