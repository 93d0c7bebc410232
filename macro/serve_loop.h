// The loop that runs a ServeScheduler (serve_scheduler.h): asks it what to do now, has an
// executor do it (prefill a request into a slot, one decode step, free a finished request's
// slot), waits on the clock when nothing has arrived, and records each step's start and end.
// The clock and the executor are interfaces: gpt_serve passes the steady clock and a CPU decoder
// (serve_executor.h); the scheduler's test passes a fake clock and an executor of fixed costs, so
// the same loop runs both, to the microsecond in the test.
#ifndef MACRO_SERVE_LOOP_H_
#define MACRO_SERVE_LOOP_H_

#include <chrono>
#include <functional>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "macro/serve_scheduler.h"

namespace macro {

class ServeClock {
 public:
  virtual ~ServeClock() = default;
  virtual double Now() = 0;               // seconds since the run's start
  virtual void SleepUntil(double t) = 0;  // returns at Now() >= t (at once if already)
};

// std::chrono::steady_clock, zero at construction; SleepUntil sleeps the thread.
class SteadyServeClock final : public ServeClock {
 public:
  SteadyServeClock() : start_(std::chrono::steady_clock::now()) {}
  double Now() override;
  void SleepUntil(double t) override;

 private:
  std::chrono::steady_clock::time_point start_;
};

class ServeExecutor {
 public:
  virtual ~ServeExecutor() = default;
  // The request's prompt into the free slot, and its first token.
  virtual absl::Status Prefill(const ServeRequest& request, int slot) = 0;
  // One new token for each running slot (ascending), requests[i] in slots[i].
  virtual absl::Status Decode(absl::Span<const int> slots, absl::Span<const int> requests) = 0;
  // The slot's request has finished.
  virtual absl::Status Free(int slot) = 0;
};

struct ServeProgress {
  double now_s = 0;
  int finished = 0, running = 0, waiting = 0, total = 0;
};

// Runs `scheduler` to the end: each step timed on `clock` (start before the executor's call, end
// after it) and recorded with Complete; the slots a step frees are freed on the executor at once.
// max_s: when the clock passes it before a step (or a wait would end past it), the run stops with
// DeadlineExceeded saying how many requests finished; what ran stays recorded. progress (may be
// empty): called after every step. Errors: the executor's, the scheduler's.
absl::Status RunServe(ServeScheduler* scheduler, ServeClock* clock, ServeExecutor* executor, double max_s,
                      const std::function<void(const ServeProgress&)>& progress);

}  // namespace macro

#endif  // MACRO_SERVE_LOOP_H_
