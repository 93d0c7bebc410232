// Residual add: kernel, then launcher.
#include "model/cuda/bf16.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/launch.cuh"
#include "model/cuda/residual_cuda.h"

namespace model {
namespace cuda {
namespace {

template <typename S>
__global__ void residual_forward_kernel(S* out, const S* inp1, const S* inp2, int64_t N) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= N) return;
  out[i] = FromFloat<S>(ToFloat(inp1[i]) + ToFloat(inp2[i]));
}

}  // namespace

template <typename S>
void residual_forward(S* out, const S* inp1, const S* inp2, int64_t N) {
  MODEL_CUDA_REQUIRE(N >= 1, "residual_forward");
  const LaunchDims d = ElementwiseLaunch(N);
  MODEL_CUDA_LAUNCH(residual_forward_kernel<S>, GridOf(d, "residual_forward"), BlockOf(d))
  (out, inp1, inp2, N);
  CUDA_CHECK_LAST("residual_forward");
}

template void residual_forward<float>(float*, const float*, const float*, int64_t);
template void residual_forward<Bf16>(Bf16*, const Bf16*, const Bf16*, int64_t);

}  // namespace cuda
}  // namespace model
