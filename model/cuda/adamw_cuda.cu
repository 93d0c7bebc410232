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
                             int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay,
                             float bc1, float bc2) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float p = params[i], mi = m[i], vi = v[i];
    adamw_update_one(&p, &mi, &vi, grads[i], lr, beta1, beta2, eps, weight_decay, bc1, bc2);
    params[i] = p;
    m[i] = mi;
    v[i] = vi;
    if (params_bf16 != nullptr) params_bf16[i] = FloatToBf16(p);
  }
}

}  // namespace

void adamw_update(float* params, Bf16* params_bf16, const float* grads, float* m, float* v, int64_t n,
                  float lr, float beta1, float beta2, float eps, float weight_decay, int t) {
  MODEL_CUDA_REQUIRE(n >= 1 && t >= 1, "adamw_update");
  // Bias corrections in float, as the CPU twin computes them.
  const float bc1 = 1.0f - std::pow(beta1, static_cast<float>(t));
  const float bc2 = 1.0f - std::pow(beta2, static_cast<float>(t));
  const LaunchDims d = GridStrideLaunch(n);
  MODEL_CUDA_LAUNCH(adamw_kernel, GridOf(d, "adamw_update"), BlockOf(d))
  (params, params_bf16, grads, m, v, n, lr, beta1, beta2, eps, weight_decay, bc1, bc2);
  CUDA_CHECK_LAST("adamw_update");
}

}  // namespace cuda
}  // namespace model
