// AdamW on the GPU over a contiguous range of fp32 master weights, with the per-element math of
// model/adamw_math.h; CPU twin: model/adamw_cpu.h. In bf16 mode the same pass also writes the
// bf16 copy of the updated weights that the next step's matmuls read.
//
// The hyperparameters and the step's bias corrections reach the kernel through device memory
// (AdamWStepArgs), not as kernel arguments: a captured CUDA graph replays its kernels with the
// arguments they were captured with, so whatever may change from step to step (the step count,
// hence bc1 and bc2; a learning-rate schedule) must be read where the host can rewrite it
// before each replay.
#ifndef MODEL_CUDA_ADAMW_CUDA_H_
#define MODEL_CUDA_ADAMW_CUDA_H_

#include <cstdint>

#include "model/cuda/bf16.h"

namespace model {
namespace cuda {

struct AdamWStepArgs {
  float lr = 0, beta1 = 0, beta2 = 0, eps = 0, weight_decay = 0;
  float bc1 = 0, bc2 = 0;  // 1 - beta^t: the bias corrections of step t
};

// The arguments of step t >= 1, bias corrections computed in float as the CPU twin does.
AdamWStepArgs MakeAdamWStepArgs(float lr, float beta1, float beta2, float eps, float weight_decay, int t);

// params, grads, m, v: fp32 (n); params_bf16: (n) or nullptr; args: ONE AdamWStepArgs in device
// memory; decay: whether args->weight_decay applies to this range (2-D weights) or 0 does.
// A grid-stride loop.
void adamw_update(float* params, Bf16* params_bf16, const float* grads, float* m, float* v, int64_t n,
                  const AdamWStepArgs* args, bool decay);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_ADAMW_CUDA_H_
