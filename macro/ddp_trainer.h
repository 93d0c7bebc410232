// One data-parallel optimizer step on one rank:
//   for each of grad_accum micro-steps: data -> Forward -> (ZeroGrad first) Backward (adds)
//   -> all-reduce of grads_data() (sum x 1/(world x grad_accum)) -> AdamW.
// With an OverlappedAllReducer (PyTorch DDP's scheme), the last micro-step's Backward hands its
// gradients, as they become final, to buckets all-reduced on a communication thread; after
// Backward the step waits for what is left. "comm" is then that wait (the exposed part) and
// comm_total the communication thread's all-reduce time.
// The result is the step a single rank would take over every rank's micro-batches together
// (the mean loss over all their tokens). Phases are timed on the device's clock (StepClock);
// "comm" is the all-reduce, including any wait for slower ranks (a straggler shows up there).
#ifndef MACRO_DDP_TRAINER_H_
#define MACRO_DDP_TRAINER_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "comm/grad_allreduce.h"
#include "comm/mpi_world.h"
#include "comm/overlapped_allreduce.h"
#include "macro/step_clock.h"
#include "model/data/batch.h"
#include "model/gpt_model.h"

namespace macro {

struct DdpStepTimes {
  double data = 0, forward = 0, backward = 0, comm = 0, optimizer = 0;
  // comm: the all-reduce time the step waited for (exposed). comm_total: all the all-reduce
  // time, overlapped or not (= comm without overlap). buckets: all-reduces of the step.
  double comm_total = 0;
  int buckets = 1;
  float loss = 0;  // this rank's mean loss over its micro-steps
  double total() const { return data + forward + backward + comm + optimizer; }
  double compute() const { return forward + backward + optimizer; }
};

class DdpTrainer {
 public:
  // Nothing is owned; all must outlive the trainer. grad_accum >= 1. overlap: nullptr, or the
  // bucketed all-reducer (the model must support the grad-ready hook; InvalidArgument from
  // Step otherwise); it replaces `reducer` for the gradients.
  DdpTrainer(comm::MpiWorld* world, model::GptModel* model, comm::GradAllReducer* reducer, StepClock* clock,
             int grad_accum, const model::AdamWConfig& opt, comm::OverlappedAllReducer* overlap = nullptr);
  ~DdpTrainer();

  // Rank 0's parameters to every rank (the ranks must start equal).
  absl::Status BroadcastParams();

  // One optimizer step; `next` fills each micro-batch (B, T as the model was planned).
  absl::StatusOr<DdpStepTimes> Step(const std::function<absl::Status(model::Batch*)>& next);

  int steps_done() const { return steps_done_; }

 private:
  comm::MpiWorld* world_;
  model::GptModel* model_;
  comm::GradAllReducer* reducer_;
  comm::OverlappedAllReducer* overlap_;
  bool hook_set_ = false;
  bool hook_active_ = false;  // the last micro-step's Backward: its final gradients go out
  StepClock* clock_;
  int grad_accum_;
  model::AdamWConfig opt_;
  model::Batch batch_;
  int steps_done_ = 0;
};

// 64-bit FNV-1a of the parameters' bytes: equal on every rank after a correct step.
absl::StatusOr<uint64_t> ParamsHash(model::GptModel* model);

}  // namespace macro

#endif  // MACRO_DDP_TRAINER_H_
