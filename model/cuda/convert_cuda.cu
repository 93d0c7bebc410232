// fp32 -> bf16 conversion: kernel, then launcher.
#include "model/cuda/bf16.h"
#include "model/cuda/convert_cuda.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/launch.cuh"

namespace model {
namespace cuda {
namespace {

__global__ void convert_to_bf16_kernel(Bf16* out, const float* in, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = FloatToBf16(in[i]);
  }
}

}  // namespace

void convert_to_bf16(Bf16* out, const float* in, int64_t n) {
  MODEL_CUDA_REQUIRE(n >= 1, "convert_to_bf16");
  const LaunchDims d = GridStrideLaunch(n);
  MODEL_CUDA_LAUNCH(convert_to_bf16_kernel, GridOf(d, "convert_to_bf16"), BlockOf(d))(out, in, n);
  CUDA_CHECK_LAST("convert_to_bf16");
}

}  // namespace cuda
}  // namespace model
