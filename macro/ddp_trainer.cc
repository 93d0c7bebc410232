// DdpTrainer: micro-steps, gradient all-reduce, AdamW; parameter broadcast and hash.
#include "macro/ddp_trainer.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace macro {

DdpTrainer::DdpTrainer(comm::MpiWorld* world, model::GptModel* model, comm::GradAllReducer* reducer,
                       StepClock* clock, int grad_accum, const model::AdamWConfig& opt)
    : world_(world), model_(model), reducer_(reducer), clock_(clock), grad_accum_(grad_accum), opt_(opt) {}

absl::Status DdpTrainer::BroadcastParams() {
  std::vector<float> p;
  if (auto s = model_->CopyParamsToHost(&p); !s.ok()) return s;
  if (auto s = world_->BroadcastFloats(p.data(), static_cast<int64_t>(p.size())); !s.ok()) return s;
  return model_->CopyParamsFromHost(p);
}

absl::StatusOr<DdpStepTimes> DdpTrainer::Step(const std::function<absl::Status(model::Batch*)>& next) {
  if (grad_accum_ < 1) {
    return absl::InvalidArgumentError(absl::StrCat("grad_accum=", grad_accum_, " is invalid: must be >= 1"));
  }
  DdpStepTimes t;
  double loss_sum = 0;
  clock_->Mark();
  for (int k = 0; k < grad_accum_; ++k) {
    if (auto s = next(&batch_); !s.ok()) return s;
    clock_->Mark();
    if (auto s = model_->Forward(batch_); !s.ok()) return s;
    clock_->Mark();
    if (k == 0) model_->ZeroGrad();
    if (auto s = model_->Backward(); !s.ok()) return s;
    clock_->Mark();
    if (grad_accum_ > 1) loss_sum += model_->loss();  // (synchronises a device between micro-steps)
  }
  // A hung peer would block the all-reduce (MPI) or the sync after it (NCCL): one deadline
  // covers both.
  world_->watchdog().Arm(
      absl::StrCat("step ", steps_done_ + 1, ": gradient all-reduce (", reducer_->name(), ")"),
      world_->timeout_s());
  const float scale = 1.0f / static_cast<float>(world_->size() * grad_accum_);
  absl::Status comm = reducer_->AllReduce(model_->grads_data(), model_->num_params(), scale);
  if (!comm.ok()) {
    world_->watchdog().Disarm();
    return comm;
  }
  clock_->Mark();
  if (auto s = model_->Update(opt_, steps_done_ + 1); !s.ok()) {
    world_->watchdog().Disarm();
    return s;
  }
  clock_->Mark();
  const float last_loss = model_->loss();  // synchronises a device
  std::vector<double> sec = clock_->Seconds();
  world_->watchdog().Disarm();
  const size_t want = 3 * static_cast<size_t>(grad_accum_) + 2;
  if (sec.size() != want) {
    return absl::InternalError(
        absl::StrCat("step clock returned ", sec.size(), " intervals, expected ", want));
  }
  for (int k = 0; k < grad_accum_; ++k) {
    t.data += sec[3 * k];
    t.forward += sec[3 * k + 1];
    t.backward += sec[3 * k + 2];
  }
  t.comm = sec[want - 2];
  t.optimizer = sec[want - 1];
  t.loss = grad_accum_ > 1 ? static_cast<float>(loss_sum / grad_accum_) : last_loss;
  ++steps_done_;
  return t;
}

absl::StatusOr<uint64_t> ParamsHash(model::GptModel* model) {
  std::vector<float> p;
  if (auto s = model->CopyParamsToHost(&p); !s.ok()) return s;
  uint64_t h = 1469598103934665603ull;
  const unsigned char* b = reinterpret_cast<const unsigned char*>(p.data());
  for (size_t i = 0; i < p.size() * sizeof(float); ++i) {
    h ^= b[i];
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace macro
