// Bias-gradient column reduction: kernel, then launcher.
#include "model/cuda/bf16.h"
#include "model/cuda/bias_backward_cuda.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/launch.cuh"

namespace model {
namespace cuda {
namespace {

// Block (32 columns) x (kColumnBlockY row lanes), grid.y row ranges: each thread sums a strided
// set of rows of its column (a warp reads 32 consecutive elements of a row), the row lanes meet
// in shared memory, the row ranges with atomicAdd.
template <typename S>
__global__ void bias_backward_kernel(float* dbias, const S* dout, int64_t R, int64_t OC) {
  __shared__ float part[kColumnBlockY][kColumnBlockX];
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kColumnBlockX + threadIdx.x;
  float sum = 0.0f;
  if (c < OC) {
    const int64_t step = static_cast<int64_t>(gridDim.y) * kColumnBlockY;
    for (int64_t r = static_cast<int64_t>(blockIdx.y) * kColumnBlockY + threadIdx.y; r < R; r += step) {
      sum += ToFloat(dout[r * OC + c]);
    }
  }
  part[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && c < OC) {
    float total = 0.0f;
    for (int j = 0; j < kColumnBlockY; ++j) total += part[j][threadIdx.x];
    atomicAdd(dbias + c, total);
  }
}

}  // namespace

template <typename S>
void bias_backward(float* dbias, const S* dout, int64_t R, int64_t OC) {
  MODEL_CUDA_REQUIRE(R >= 1 && OC >= 1, "bias_backward");
  const LaunchDims d = ColumnReduceLaunch(R, OC);
  MODEL_CUDA_LAUNCH(bias_backward_kernel<S>, GridOf(d, "bias_backward"), BlockOf(d))(dbias, dout, R, OC);
  CUDA_CHECK_LAST("bias_backward");
}

template void bias_backward<float>(float*, const float*, int64_t, int64_t);
template void bias_backward<Bf16>(float*, const Bf16*, int64_t, int64_t);

}  // namespace cuda
}  // namespace model
