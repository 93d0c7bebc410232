#include "model/train_setup.h"

#include "model/cpu_model.h"
#include "model/data/batch_source.h"

namespace model {

absl::StatusOr<ModelAndBatch> MakeModelAndBatch(const GptConfig& config, int B, int T, uint64_t seed,
                                                uint64_t batch_seed) {
  ModelAndBatch r;
  absl::StatusOr<std::unique_ptr<GptModel>> m = MakeCpuModel(config, B, T, seed);
  if (!m.ok()) return m.status();
  r.model = *std::move(m);
  absl::StatusOr<Batch> batch = FixedRandomBatch(B, T, config.vocab, batch_seed);
  if (!batch.ok()) return batch.status();
  r.batch = *std::move(batch);
  return r;
}

absl::Status ForwardBackward(GptModel& model, const Batch& batch) {
  if (absl::Status st = model.Forward(batch); !st.ok()) return st;
  model.ZeroGrad();
  return model.Backward();
}

absl::StatusOr<TrainedModel> TrainOnFixedBatch(const GptConfig& config, int B, int T, uint64_t seed,
                                               uint64_t batch_seed, int steps, const StepHooks& hooks) {
  absl::StatusOr<ModelAndBatch> setup = MakeModelAndBatch(config, B, T, seed, batch_seed);
  if (!setup.ok()) return setup.status();
  GptModel& m = *setup->model;
  TrainedModel r;
  const AdamWConfig opt;
  for (int step = 1; step <= steps; ++step) {
    if (absl::Status st = m.Forward(setup->batch); !st.ok()) return st;
    r.losses.push_back(m.loss());
    if (hooks.after_forward) hooks.after_forward(step, m);
    m.ZeroGrad();
    if (absl::Status st = m.Backward(); !st.ok()) return st;
    if (hooks.after_backward) hooks.after_backward(step, m);
    if (absl::Status st = m.Update(opt, step); !st.ok()) return st;
  }
  r.model = std::move(setup->model);
  return r;
}

}  // namespace model
