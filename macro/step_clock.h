// Timestamps on the device's timeline, for timing the phases of a train step.
//
// Mark() records a point in order; Seconds() waits for the marks and returns the intervals
// between consecutive ones, then forgets them. On the CPU a mark is steady_clock::now(); on
// CUDA it is a cudaEvent recorded on the CUDA model's stream (the per-thread default stream), so
// the intervals are GPU time, read only after the events complete (no host clock around
// asynchronous work).
#ifndef MACRO_STEP_CLOCK_H_
#define MACRO_STEP_CLOCK_H_

#include <memory>
#include <string>
#include <vector>

#include "macro/op_trace.h"
#include "model/op_timer.h"

namespace macro {

class StepClock {
 public:
  virtual ~StepClock() = default;
  virtual void Mark() = 0;
  virtual std::vector<double> Seconds() = 0;
};

// An OpTimer that records every Begin/End as a span of an OpTrace (for --profile), while
// recording is on; totals per op come from the trace.
class TraceTimer : public model::OpTimer {
 public:
  // Spans recorded so far are resolved (a device timer waits for its events) into `trace`.
  void Flush(OpTrace* trace) {
    Replay(trace);
    Clear();
  }
  std::vector<model::OpTime> Totals() override {
    OpTrace t;
    Replay(&t);
    std::vector<model::OpTime> out;
    for (const OpSummary& s : t.TopBySelfTime("op", -1)) out.push_back({s.name, s.total_us * 1e-6, s.calls});
    return out;
  }
  void Reset() override { Clear(); }

 protected:
  // Adds the spans recorded since the last Clear to `trace` (a device timer waits for its events).
  virtual void Replay(OpTrace* trace) = 0;
  virtual void Clear() = 0;
};

std::unique_ptr<StepClock> MakeHostStepClock();
std::unique_ptr<TraceTimer> MakeHostTraceTimer();

// CUDA versions; nullptr when this binary was built without CUDA.
std::unique_ptr<StepClock> MakeCudaStepClock();
std::unique_ptr<TraceTimer> MakeCudaTraceTimer();

}  // namespace macro

#endif  // MACRO_STEP_CLOCK_H_
