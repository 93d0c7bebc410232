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
  auto src = MakeFixedRandomBatchSource(B, T, config.vocab, batch_seed);
  if (!src.ok()) return src.status();
  if (absl::Status st = (*src)->Next(&r.batch); !st.ok()) return st;
  return r;
}

absl::Status ForwardBackward(GptModel& model, const Batch& batch) {
  if (absl::Status st = model.Forward(batch); !st.ok()) return st;
  model.ZeroGrad();
  return model.Backward();
}

}  // namespace model
