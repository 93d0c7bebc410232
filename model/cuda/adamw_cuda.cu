// AdamW update: kernel, then launcher.
#include <cmath>

#include "model/adamw_math.h"
#include "model/cuda/adamw_cuda.h"
#include "model/cuda/bf16.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/launch.cuh"

namespace model {
namespace cuda {
namespace {

__global__ void adamw_kernel(float* params, Bf16* params_bf16, const float* grads, float* m, float* v,
                             int64_t n, const AdamWStepArgs* args, bool decay) {
  const AdamWStepArgs a = *args;  // one 28-byte read per thread, served from cache
  const float weight_decay = decay ? a.weight_decay : 0.0f;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float p = params[i], mi = m[i], vi = v[i];
    adamw_update_one(&p, &mi, &vi, grads[i], a.lr, a.beta1, a.beta2, a.eps, weight_decay, a.bc1, a.bc2);
    params[i] = p;
    m[i] = mi;
    v[i] = vi;
    if (params_bf16 != nullptr) params_bf16[i] = FloatToBf16(p);
  }
}

}  // namespace

AdamWStepArgs MakeAdamWStepArgs(float lr, float beta1, float beta2, float eps, float weight_decay, int t) {
  MODEL_CUDA_REQUIRE(t >= 1, "MakeAdamWStepArgs");
  // Bias corrections in float, as the CPU twin computes them.
  return AdamWStepArgs{
      lr, beta1, beta2, eps, weight_decay, adamw_bias_correction(beta1, t), adamw_bias_correction(beta2, t)};
}

void adamw_update(float* params, Bf16* params_bf16, const float* grads, float* m, float* v, int64_t n,
                  const AdamWStepArgs* args, bool decay) {
  MODEL_CUDA_REQUIRE(n >= 1 && args != nullptr, "adamw_update");
  const LaunchDims d = GridStrideLaunch(n);
  MODEL_CUDA_LAUNCH(adamw_kernel, GridOf(d, "adamw_update"), BlockOf(d))
  (params, params_bf16, grads, m, v, n, args, decay);
  CUDA_CHECK_LAST("adamw_update");
}

}  // namespace cuda
}  // namespace model
