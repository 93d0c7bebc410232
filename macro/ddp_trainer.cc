// DdpTrainer: micro-steps, gradient all-reduce, AdamW; parameter broadcast and hash.
#include "macro/ddp_trainer.h"

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace macro {

DdpTrainer::DdpTrainer(comm::MpiWorld* world, model::GptModel* model, comm::GradAllReducer* reducer,
                       StepClock* clock, int grad_accum, const model::AdamWConfig& opt,
                       comm::OverlappedAllReducer* overlap)
    : world_(world),
      model_(model),
      reducer_(reducer),
      overlap_(overlap),
      clock_(clock),
      grad_accum_(grad_accum),
      opt_(opt) {
  if (overlap_ != nullptr) {
    hook_set_ = model_->SetGradReadyHook([this](const std::vector<model::GradRange>& ranges) {
      if (!hook_active_) return;
      std::vector<comm::FloatSpan> spans;
      spans.reserve(ranges.size());
      for (const model::GradRange& r : ranges) spans.push_back({r.offset, r.count});
      overlap_->Ready(spans);
    });
  }
}

DdpTrainer::~DdpTrainer() {
  if (hook_set_) model_->SetGradReadyHook(nullptr);
}

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
  if (overlap_ != nullptr && !hook_set_) {
    return absl::InvalidArgumentError(
        "overlapped all-reduce: this model does not report gradients during backward (the CUDA model): use "
        "--overlap=false");
  }
  DdpStepTimes t;
  double loss_sum = 0;
  const float scale = 1.0f / static_cast<float>(world_->size() * grad_accum_);
  clock_->Mark();
  for (int k = 0; k < grad_accum_; ++k) {
    if (auto s = next(&batch_); !s.ok()) return s;
    clock_->Mark();
    if (auto s = model_->Forward(batch_); !s.ok()) return s;
    clock_->Mark();
    if (k == 0) model_->ZeroGrad();
    const bool last = k == grad_accum_ - 1;
    if (overlap_ != nullptr && last) {
      overlap_->Begin(model_->grads_data(), scale, steps_done_ + 1);
      hook_active_ = true;
    }
    absl::Status back = model_->Backward();
    hook_active_ = false;
    if (!back.ok()) {
      if (overlap_ != nullptr && last) overlap_->Finish().IgnoreError();  // no bucket left in flight
      return back;
    }
    clock_->Mark();
    if (grad_accum_ > 1) loss_sum += model_->loss();  // (synchronises a device between micro-steps)
  }
  if (overlap_ != nullptr) {
    // The communication thread has its own watchdog: a dead peer ends the rank from there.
    absl::Status comm = overlap_->Finish();
    if (!comm.ok()) return comm;
    t.comm_total = overlap_->busy_seconds();
    t.buckets = overlap_->buckets();
    world_->watchdog().Arm(absl::StrCat("step ", steps_done_ + 1, ": AdamW"), world_->timeout_s());
  } else {
    // A hung peer would block the all-reduce (MPI) or the sync after it (NCCL): one deadline
    // covers both.
    world_->watchdog().Arm(
        absl::StrCat("step ", steps_done_ + 1, ": gradient all-reduce (", reducer_->name(), ")"),
        world_->timeout_s());
    absl::Status comm = reducer_->AllReduce(model_->grads_data(), model_->num_params(), scale);
    if (!comm.ok()) {
      world_->watchdog().Disarm();
      return comm;
    }
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
  if (overlap_ == nullptr) t.comm_total = t.comm;
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
