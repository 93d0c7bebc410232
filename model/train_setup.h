// For the CPU model's training tests: a model and the one fixed batch it trains on, and one
// forward and backward pass over it.
#ifndef MODEL_TRAIN_SETUP_H_
#define MODEL_TRAIN_SETUP_H_

#include <cstdint>
#include <memory>

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

}  // namespace model

#endif  // MODEL_TRAIN_SETUP_H_
