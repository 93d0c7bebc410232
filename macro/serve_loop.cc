// RunServe and the steady clock (serve_loop.h).
#include "macro/serve_loop.h"

#include <thread>

#include "absl/strings/str_cat.h"

namespace macro {

double SteadyServeClock::Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void SteadyServeClock::SleepUntil(double t) {
  std::this_thread::sleep_until(start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                             std::chrono::duration<double>(t)));
}

namespace {

absl::Status Deadline(const ServeScheduler& s, double max_s) {
  return absl::DeadlineExceededError(absl::StrCat(s.finished(), " of ", s.records().size(),
                                                  " requests finished within the limit of ", max_s, " s"));
}

}  // namespace

absl::Status RunServe(ServeScheduler* s, ServeClock* clock, ServeExecutor* exec, double max_s,
                      const std::function<void(const ServeProgress&)>& progress) {
  const int total = static_cast<int>(s->records().size());
  while (true) {
    const double now = clock->Now();
    if (now > max_s) return Deadline(*s, max_s);
    const ServeAction a = s->Next(now);
    if (a.kind == ServeAction::Kind::kDone) return absl::OkStatus();
    if (a.kind == ServeAction::Kind::kWait) {
      if (a.until_s > max_s) return Deadline(*s, max_s);
      clock->SleepUntil(a.until_s);
      continue;
    }
    const double start = clock->Now();
    absl::Status st = a.kind == ServeAction::Kind::kPrefill ? exec->Prefill(s->records()[a.request].request, a.slot)
                                                            : exec->Decode(a.slots, a.requests);
    if (!st.ok()) return st;
    const double end = clock->Now();
    absl::StatusOr<std::vector<int>> freed = s->Complete(a, start, end);
    if (!freed.ok()) return freed.status();
    for (int slot : *freed) {
      if (absl::Status f = exec->Free(slot); !f.ok()) return f;
    }
    if (progress) progress({end, s->finished(), s->running(), s->waiting(end), total});
  }
}

}  // namespace macro
