// One gpt_serve session on the CPU: the parameters (the training model's init from --seed, as
// gpt_decode makes them), the threads and the GEMM library, one CpuDecoder of max_batch slots in
// the chosen weight format (model/weight_format.h; its errors pass through: bf16 without
// AVX-512's oneDNN path, a format not built), a warm-up, and runs of request loads on it: the
// scheduler (serve_scheduler.h) driven by the loop (serve_loop.h) on the steady clock, with an
// executor that prefills and steps the decoder's slots and picks tokens greedily.
#ifndef MACRO_SERVE_SESSION_H_
#define MACRO_SERVE_SESSION_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "macro/gpt_serve_options.h"
#include "macro/serve_load.h"
#include "macro/serve_loop.h"
#include "macro/serve_scheduler.h"
#include "model/cpu_decoder.h"

namespace macro {

// The scheduler's steps on a CpuDecoder's slots: PrefillSlot with the load's prompt, StepSlots
// with each slot's last token; greedy picks. Errors: the decoder's, or a row of non-finite logits
// (naming the request).
class DecoderServeExecutor final : public ServeExecutor {
 public:
  DecoderServeExecutor(model::CpuDecoder* decoder, const ServeLoad* load);
  absl::Status Prefill(const ServeRequest& request, int slot) override;
  absl::Status Decode(absl::Span<const int> slots, absl::Span<const int> requests) override;
  absl::Status Free(int slot) override;

 private:
  // The greedy pick of each of the last call's rows into last_[slots[i]]; rows checked finite.
  absl::Status Pick(absl::Span<const int> slots, absl::Span<const int> requests);
  model::CpuDecoder* d_;
  const ServeLoad* load_;
  std::vector<int32_t> last_;  // (max_batch) each slot's last token
  std::vector<int32_t> next_;
};

// A finished or stopped run.
struct ServeRun {
  ServeScheduler scheduler;
  bool stopped = false;  // by the time limit; why in stop_reason
  std::string stop_reason;
  double wall_s = 0;
};

class ServeSession {
 public:
  // Threads, GEMM library, parameters, the host-memory check, the decoder, a warm-up (a longest
  // prompt into every slot, two steps of them all). notes: what was set up, for the log.
  static absl::StatusOr<std::unique_ptr<ServeSession>> Create(const ServeOptions& o, std::vector<std::string>* notes);

  // The load with max_batch slots (<= the options'), stopped past max_s. progress as RunServe's.
  absl::StatusOr<ServeRun> Run(const ServeLoad& load, int max_batch, double max_s,
                               const std::function<void(const ServeProgress&)>& progress);

  model::CpuDecoder* decoder() { return decoder_.get(); }

 private:
  ServeSession() = default;
  absl::Status WarmUp();
  ServeOptions o_;
  std::vector<float> params_;
  std::unique_ptr<model::CpuDecoder> decoder_;
};

}  // namespace macro

#endif  // MACRO_SERVE_SESSION_H_
