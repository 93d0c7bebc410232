// The device-agnostic GPT-2 training interface. One GptModel is one device's model: parameters,
// gradients, AdamW state and activations, all planned once at creation for a batch of B
// sequences of T tokens. The train-step benchmark (macro/gpt_step) and DDP drive the CPU model
// (cpu_model.h: MakeCpuModel) and the CUDA model through this interface alone.
//
// One training step:  Forward(batch) -> loss() -> ZeroGrad() -> Backward() -> [DDP all-reduce
// of grads_data()] -> Update(opt, step).  ZeroGrad may come anywhere before Backward: Backward
// accumulates into the gradients (so micro-batches can accumulate).
// params_data() and grads_data() are in device() memory with the layout of param_layout.h.
#ifndef MODEL_GPT_MODEL_H_
#define MODEL_GPT_MODEL_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "model/data/batch.h"
#include "model/gpt_config.h"
#include "model/grad_ready.h"
#include "model/op_timer.h"

namespace model {

// nanoGPT's defaults (train.py: learning_rate 6e-4, beta2 0.95, weight_decay 0.1).
struct AdamWConfig {
  float lr = 6e-4f;
  float beta1 = 0.9f;
  float beta2 = 0.95f;
  float eps = 1e-8f;
  float weight_decay = 0.1f;  // applied to matrices (embeddings, Linear weights) only
};

// lr >= 0, betas in [0, 1), eps > 0, weight_decay >= 0.
absl::Status ValidateAdamW(const AdamWConfig& opt);
// ValidateAdamW plus step >= 1 (steps count from 1: the bias corrections are 1 - beta^step).
absl::Status ValidateAdamWStep(const AdamWConfig& opt, int step);

// The batch matches the planned (B, T), both vectors have B*T entries, and every input and
// target token is in [0, vocab). Errors name the value, its position and the allowed range.
absl::Status ValidateBatch(const GptConfig& config, int B, int T, const Batch& batch);

class GptModel {
 public:
  virtual ~GptModel() = default;

  virtual std::string_view device() const = 0;  // "cpu" / "cuda"
  virtual const GptConfig& config() const = 0;
  virtual int batch_size() const = 0;  // B planned at creation
  virtual int seq_len() const = 0;     // T planned at creation

  // Forward pass and mean cross-entropy loss over the B*T targets. The logits stay readable
  // (CopyLogitsToHost) until Backward, which turns them into their gradient in place.
  virtual absl::Status Forward(const Batch& batch) = 0;
  virtual float loss() = 0;  // of the last Forward; synchronises the device if any
  virtual void ZeroGrad() = 0;
  // Gradients of the last Forward's mean loss, ADDED to the gradient buffer.
  // FailedPrecondition without a Forward since the last Backward.
  virtual absl::Status Backward() = 0;
  // AdamW on every parameter; step counts from 1 (bias correction).
  virtual absl::Status Update(const AdamWConfig& opt, int step) = 0;
  // One whole training step without a gradient all-reduce: Forward, ZeroGrad, Backward, Update;
  // loss() is then this step's. A model may run it as one unit (the CUDA model with
  // CudaGptOptions::cuda_graph replays a captured CUDA graph); the default makes the four calls.
  virtual absl::Status TrainStep(const Batch& batch, const AdamWConfig& opt, int step);
  virtual void Synchronize() = 0;  // no-op on the CPU

  virtual int64_t num_params() const = 0;
  virtual float* params_data() = 0;  // (num_params) in device() memory
  virtual float* grads_data() = 0;   // (num_params) in device() memory; DDP all-reduces it

  // Per-op timing (model/op_timer.h) or nullptr to stop; the timer must outlive its use.
  virtual void SetOpTimer(OpTimer* timer) = 0;
  // Calls `hook` during each Backward as groups of gradients become final (grad_ready.h);
  // nullptr stops. False when this model never calls it (the CUDA model): then the gradients
  // are final only when Backward returns.
  virtual bool SetGradReadyHook(GradReadyHook hook) {
    (void)hook;
    return false;
  }

  // The bytes of the activation buffers that sit in memory now (the CPU model: mincore over the
  // buffer its recompute level sized, model/host_memory.h); -1 where not measured (CUDA).
  virtual int64_t ResidentActivationBytes() const { return -1; }

  virtual absl::Status CopyParamsToHost(std::vector<float>* out) = 0;
  virtual absl::Status CopyParamsFromHost(absl::Span<const float> in) = 0;  // num_params values
  virtual absl::Status CopyGradsToHost(std::vector<float>* out) = 0;
  // (B, T, Vp) logits of the last Forward; FailedPrecondition after Backward overwrote them.
  virtual absl::Status CopyLogitsToHost(std::vector<float>* out) = 0;
};

}  // namespace model

#endif  // MODEL_GPT_MODEL_H_
