// AdamW on the GPU over a contiguous range of fp32 master weights, with the per-element math of
// model/adamw_math.h; CPU twin: model/adamw_cpu.h. In bf16 mode the same pass also writes the
// bf16 copy of the updated weights that the next step's matmuls read.
#ifndef MODEL_CUDA_ADAMW_CUDA_H_
#define MODEL_CUDA_ADAMW_CUDA_H_

#include <cstdint>

#include "model/cuda/bf16.h"

namespace model {
namespace cuda {

// params, grads, m, v: fp32 (n); params_bf16: (n) or nullptr; t: the step, from 1 (bias
// correction). A grid-stride loop.
void adamw_update(float* params, Bf16* params_bf16, const float* grads, float* m, float* v, int64_t n,
                  float lr, float beta1, float beta2, float eps, float weight_decay, int t);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_ADAMW_CUDA_H_
