// ServeScheduler: continuous batching as a state machine (serve_scheduler.h).
#include "macro/serve_scheduler.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace macro {

const char* ServeStepKindName(ServeStepKind k) { return k == ServeStepKind::kPrefill ? "prefill" : "decode"; }

absl::StatusOr<ServeScheduler> ServeScheduler::Create(std::vector<ServeRequest> requests, int max_batch) {
  if (max_batch < 1) return absl::InvalidArgumentError(absl::StrCat("max_batch ", max_batch, ": must be >= 1"));
  const int n = static_cast<int>(requests.size());
  ServeScheduler s;
  s.max_batch_ = max_batch;
  s.records_.resize(requests.size());
  std::vector<bool> seen(requests.size(), false);
  for (const ServeRequest& r : requests) {
    if (r.id < 0 || r.id >= n || seen[r.id]) {
      return absl::InvalidArgumentError(
          absl::StrCat("request id ", r.id, ": ids must be 0 to ", n - 1, ", each once"));
    }
    seen[r.id] = true;
    if (!std::isfinite(r.arrival_s) || r.arrival_s < 0) {
      return absl::InvalidArgumentError(absl::StrCat("request ", r.id, ": arrival ", r.arrival_s, " s: must be >= 0"));
    }
    if (r.prompt < 1 || r.output < 1) {
      return absl::InvalidArgumentError(absl::StrCat("request ", r.id, ": prompt ", r.prompt, ", output ", r.output,
                                                     " tokens: each must be >= 1"));
    }
    s.records_[r.id].request = r;
  }
  s.order_.resize(requests.size());
  for (int i = 0; i < n; ++i) s.order_[i] = i;
  std::stable_sort(s.order_.begin(), s.order_.end(), [&](int a, int b) {
    return s.records_[a].request.arrival_s < s.records_[b].request.arrival_s;
  });
  s.slot_req_.assign(static_cast<size_t>(max_batch), -1);
  return s;
}

int ServeScheduler::running() const {
  return static_cast<int>(std::count_if(slot_req_.begin(), slot_req_.end(), [](int r) { return r >= 0; }));
}

int ServeScheduler::waiting(double now) const {
  int w = 0;
  for (size_t i = next_admit_; i < order_.size() && records_[order_[i]].request.arrival_s <= now; ++i) ++w;
  return w;
}

ServeAction ServeScheduler::Next(double now) const {
  ServeAction a;
  // A waiting request takes the lowest free slot first (first come, first served).
  if (next_admit_ < order_.size() && records_[order_[next_admit_]].request.arrival_s <= now) {
    auto free = std::find(slot_req_.begin(), slot_req_.end(), -1);
    if (free != slot_req_.end()) {
      a.kind = ServeAction::Kind::kPrefill;
      a.request = order_[next_admit_];
      a.slot = static_cast<int>(free - slot_req_.begin());
      return a;
    }
  }
  for (int s = 0; s < max_batch_; ++s) {
    if (slot_req_[s] >= 0) {
      a.slots.push_back(s);
      a.requests.push_back(slot_req_[s]);
    }
  }
  if (!a.slots.empty()) {
    a.kind = ServeAction::Kind::kDecode;
  } else if (next_admit_ < order_.size()) {
    a.kind = ServeAction::Kind::kWait;
    a.until_s = records_[order_[next_admit_]].request.arrival_s;
  } else {
    a.kind = ServeAction::Kind::kDone;
  }
  return a;
}

absl::StatusOr<std::vector<int>> ServeScheduler::Complete(const ServeAction& a, double start_s, double end_s) {
  if (!(end_s >= start_s)) {
    return absl::InvalidArgumentError(absl::StrCat("a step from ", start_s, " s to ", end_s, " s"));
  }
  std::vector<int> freed;
  auto finish = [&](ServeRecord& r) {
    r.finish_s = end_s;
    slot_req_[r.slot] = -1;
    freed.push_back(r.slot);
    ++finished_;
  };
  if (a.kind == ServeAction::Kind::kPrefill) {
    if (next_admit_ >= order_.size() || a.request != order_[next_admit_] || a.slot < 0 || a.slot >= max_batch_ ||
        slot_req_[a.slot] != -1) {
      return absl::FailedPreconditionError(
          absl::StrCat("prefill of request ", a.request, " into slot ", a.slot, ": not what Next said"));
    }
    ServeRecord& r = records_[a.request];
    ++next_admit_;
    r.slot = a.slot;
    slot_req_[a.slot] = a.request;
    r.prefill_start_s = start_s;
    r.first_token_s = end_s;
    r.tokens = 1;
    steps_.push_back({ServeStepKind::kPrefill, start_s, end_s - start_s, 1, r.request.prompt});
    if (r.tokens == r.request.output) finish(r);
    return freed;
  }
  if (a.kind != ServeAction::Kind::kDecode || a.slots.empty() || a.slots.size() != a.requests.size()) {
    return absl::InvalidArgumentError("only a prefill or a decode step can complete");
  }
  for (size_t i = 0; i < a.slots.size(); ++i) {
    if (a.slots[i] < 0 || a.slots[i] >= max_batch_ || slot_req_[a.slots[i]] != a.requests[i]) {
      return absl::FailedPreconditionError(absl::StrCat("decode of slot ", a.slots[i], ": not running request ",
                                                        a.requests[i]));
    }
  }
  const int batch = static_cast<int>(a.slots.size());
  steps_.push_back({ServeStepKind::kDecode, start_s, end_s - start_s, batch, batch});
  for (int id : a.requests) {
    ServeRecord& r = records_[id];
    if (++r.tokens == r.request.output) finish(r);
  }
  return freed;
}

}  // namespace macro
