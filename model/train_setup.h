// For the CPU model's training tests: a model and the one fixed batch it trains on, one forward
// and backward pass over it, and a few training steps on it.
#ifndef MODEL_TRAIN_SETUP_H_
#define MODEL_TRAIN_SETUP_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/data/batch.h"
#include "model/gpt_config.h"
#include "model/gpt_model.h"

namespace model {

struct ModelAndBatch {
  std::unique_ptr<GptModel> model;
  Batch batch;
};

// The CPU model of `config` for (B, T), its parameters from `seed` (MakeCpuModel), and one
// (B, T) batch of random tokens below config.vocab from `batch_seed` (MakeFixedRandomBatchSource).
absl::StatusOr<ModelAndBatch> MakeModelAndBatch(const GptConfig& config, int B, int T, uint64_t seed,
                                                uint64_t batch_seed);

// Forward over `batch`, ZeroGrad, Backward: one step's gradients, without the update.
absl::Status ForwardBackward(GptModel& model, const Batch& batch);

// What TrainOnFixedBatch calls at each step (1-based), each optional: after Forward (the logits
// are readable until Backward) and after Backward (this step's gradients, before the update).
struct StepHooks {
  std::function<void(int step, GptModel&model)> after_forward, after_backward;
};

struct TrainedModel {
  std::unique_ptr<GptModel> model;
  std::vector<float> losses;  // of each step
};

// MakeModelAndBatch, then `steps` training steps with the default AdamW options on the one
// batch: Forward, ZeroGrad, Backward, Update. The first error stops it.
absl::StatusOr<TrainedModel> TrainOnFixedBatch(const GptConfig& config, int B, int T, uint64_t seed,
                                               uint64_t batch_seed, int steps, const StepHooks& hooks = {});

}  // namespace model

#endif  // MODEL_TRAIN_SETUP_H_
