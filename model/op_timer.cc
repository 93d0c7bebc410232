// Host steady_clock op timer.
#include "model/op_timer.h"

namespace model {

void HostOpTimer::Begin(std::string_view op) {
  size_t index = totals_.size();
  for (size_t i = 0; i < totals_.size(); ++i) {
    if (totals_[i].op == op) {
      index = i;
      break;
    }
  }
  if (index == totals_.size()) totals_.push_back(OpTime{std::string(op), 0.0, 0});
  open_.push_back(Open{index, std::chrono::steady_clock::now()});
}

void HostOpTimer::End() {
  if (open_.empty()) return;  // unbalanced End: ignored rather than crashing a benchmark
  const auto now = std::chrono::steady_clock::now();
  const Open o = open_.back();
  open_.pop_back();
  totals_[o.index].seconds += std::chrono::duration<double>(now - o.start).count();
  totals_[o.index].calls += 1;
}

void HostOpTimer::Reset() {
  totals_.clear();
  open_.clear();
}

}  // namespace model
