// The scheduler of //macro:gpt_serve: continuous batching of requests over a decoder's slots, as
// a pure state machine. It never reads a clock and runs nothing itself: Next(now) says what to do
// at time `now` (prefill a request into a slot, run one decode step over the running slots, wait
// for the next arrival, or nothing is left), and Complete(action, start, end) records what ran
// when. serve_loop.h drives it with a clock and an executor (the real ones, or a test's fakes).
//
// Continuous batching (Orca, Yu et al. 2022; vLLM): up to max_batch requests run at once, one a
// slot. A request that has produced its last token frees its slot at the end of that step, and a
// waiting request's prefill takes it before the next decode step; the decode batch grows and
// shrinks with the load instead of running in lockstep until the slowest stream ends.
//
// Prefill and decode share the machine as vLLM's scheduler shared them before chunked prefill:
// a prefill is a step of its own, and waiting requests go first, first come first served, one
// prefill a step, while a slot is free; a decode step (one new token for every running request)
// runs when no arrived request can take a slot. Why: it keeps the slots full (throughput, and the
// TTFT of a request that finds a free slot is its own prefill), at the price of stalls in the
// running streams' TPOT while others prefill; the TPOT p99 shows that price. The alternative
// (one prefill per decode step) bounds TPOT but lets arrivals wait longer with a slot free.
//
// Tokens: a request of output length G gets its first token from its prefill's logits (the time
// to first token, TTFT, ends there) and the other G - 1 from decode steps; TPOT = (finish - first
// token) / (G - 1), as vLLM's and MLPerf's benchmarks count it (none for G = 1).
#ifndef MACRO_SERVE_SCHEDULER_H_
#define MACRO_SERVE_SCHEDULER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace macro {

struct ServeRequest {
  int id = 0;             // its index in the load
  double arrival_s = 0;   // from the run's start
  int prompt = 0;         // prompt tokens, >= 1
  int output = 0;         // tokens to generate, >= 1 (the first from the prefill)
};

enum class ServeStepKind { kPrefill, kDecode };
const char* ServeStepKindName(ServeStepKind k);  // "prefill", "decode"

struct ServeAction {
  enum class Kind { kPrefill, kDecode, kWait, kDone };
  Kind kind = Kind::kDone;
  int request = -1, slot = -1;  // kPrefill: the request and the free slot it takes
  std::vector<int> slots;       // kDecode: the running slots, ascending
  std::vector<int> requests;    // kDecode: their requests, in the same order
  double until_s = 0;           // kWait: the next arrival
};

// One request's times (seconds from the run's start; -1: not reached).
struct ServeRecord {
  ServeRequest request;
  int slot = -1;
  double prefill_start_s = -1, first_token_s = -1, finish_s = -1;
  int tokens = 0;  // produced so far
  bool finished() const { return finish_s >= 0; }
  double queue_s() const { return prefill_start_s - request.arrival_s; }  // waiting for a slot
  double ttft_s() const { return first_token_s - request.arrival_s; }     // queue + prefill
  bool has_tpot() const { return finished() && request.output > 1; }
  double tpot_s() const { return (finish_s - first_token_s) / (request.output - 1); }
};

struct ServeStep {
  ServeStepKind kind = ServeStepKind::kDecode;
  double start_s = 0, duration_s = 0;
  int batch = 0;   // decode: the streams stepped; prefill: 1
  int tokens = 0;  // decode: = batch (one new token each); prefill: the prompt's tokens
};

class ServeScheduler {
 public:
  // requests: any order (run by arrival, ties by id), ids 0 .. n-1 each once; arrival finite and
  // >= 0, prompt and output >= 1. max_batch >= 1 slots. Errors name the request and the value.
  static absl::StatusOr<ServeScheduler> Create(std::vector<ServeRequest> requests, int max_batch);

  // What to do at time `now` (see the header comment for the policy).
  ServeAction Next(double now) const;
  // Records a kPrefill or kDecode action that Next returned, run from start_s to end_s. Returns
  // the slots it freed (their requests finished; the next step can fill them). Error: an action
  // that does not fit the state (a slot not free for a prefill, not running for a decode), a
  // wait or done action, end < start.
  absl::StatusOr<std::vector<int>> Complete(const ServeAction& action, double start_s, double end_s);

  bool done() const { return finished_ == static_cast<int>(records_.size()); }
  int finished() const { return finished_; }
  int running() const;
  int waiting(double now) const;  // arrived, not yet prefilled
  int max_batch() const { return max_batch_; }
  const std::vector<ServeRecord>& records() const { return records_; }  // by request id
  const std::vector<ServeStep>& steps() const { return steps_; }

 private:
  ServeScheduler() = default;
  int max_batch_ = 0;
  std::vector<ServeRecord> records_;
  std::vector<int> order_;      // request ids by arrival
  size_t next_admit_ = 0;       // index into order_ of the next request to prefill
  std::vector<int> slot_req_;   // (max_batch) the request in each slot; -1: free
  int finished_ = 0;
  std::vector<ServeStep> steps_;
};

}  // namespace macro

#endif  // MACRO_SERVE_SCHEDULER_H_
