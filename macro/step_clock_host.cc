// Host steady_clock implementations of StepClock and TraceTimer (CPU ops are synchronous).
#include <chrono>

#include "macro/step_clock.h"

namespace macro {
namespace {

using Clock = std::chrono::steady_clock;

class HostStepClock : public StepClock {
 public:
  void Mark() override { marks_.push_back(Clock::now()); }
  std::vector<double> Seconds() override {
    std::vector<double> out;
    for (size_t i = 1; i < marks_.size(); ++i) {
      out.push_back(std::chrono::duration<double>(marks_[i] - marks_[i - 1]).count());
    }
    marks_.clear();
    return out;
  }

 private:
  std::vector<Clock::time_point> marks_;
};

class HostTraceTimer : public TraceTimer {
 public:
  void Begin(std::string_view op) override { events_.push_back({true, std::string(op), Clock::now()}); }
  void End() override { events_.push_back({false, "", Clock::now()}); }

 private:
  void Clear() override { events_.clear(); }
  struct Event {
    bool begin;
    std::string op;
    Clock::time_point at;
  };
  void Replay(OpTrace* t) override {
    for (const Event& e : events_) {
      double us = std::chrono::duration<double, std::micro>(e.at - origin_).count();
      if (e.begin)
        t->Begin(e.op, "op", us);
      else
        t->End(us);
    }
  }
  Clock::time_point origin_ = Clock::now();
  std::vector<Event> events_;
};

}  // namespace

std::unique_ptr<StepClock> MakeHostStepClock() { return std::make_unique<HostStepClock>(); }
std::unique_ptr<TraceTimer> MakeHostTraceTimer() { return std::make_unique<HostTraceTimer>(); }

}  // namespace macro
