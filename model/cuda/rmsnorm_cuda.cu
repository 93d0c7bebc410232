// RMSNorm forward / backward: kernels, then launchers.
#include "model/cuda/bf16.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/launch.cuh"
#include "model/cuda/rmsnorm_cuda.h"
#include "model/rmsnorm_math.h"

namespace model {
namespace cuda {
namespace {

constexpr int kBlock = 256;

// ----------------------------------------------------------------------------------------------
// kernels

// One warp per row: the sum of squares, then the scaled output (the row stays in L1).
template <typename S>
__global__ void rmsnorm_forward_kernel(S* out, float* rstd, const S* inp, const S* weight, int64_t N,
                                       int64_t C) {
  const int lane = threadIdx.x % kWarpSize;
  const int64_t row = WarpRow();
  if (row >= N) return;  // the whole warp leaves together
  const S* x = inp + row * C;
  float ss = 0.0f;
  for (int64_t i = lane; i < C; i += kWarpSize) {
    const float v = ToFloat(x[i]);
    ss += v * v;
  }
  const float s = 1.0f / sqrtf(WarpSum(ss) / static_cast<float>(C) + kRmsNormEps);
  S* o = out + row * C;
  for (int64_t i = lane; i < C; i += kWarpSize) o[i] = FromFloat<S>(ToFloat(x[i]) * s * ToFloat(weight[i]));
  if (lane == 0) rstd[row] = s;
}

// One warp per row: dinp += rstd * (w dy - x * rstd^2 * mean(w dy x)).
template <typename S>
__global__ void rmsnorm_backward_input_kernel(S* dinp, const S* dout, const S* inp, const S* weight,
                                              const float* rstd, int64_t N, int64_t C) {
  const int lane = threadIdx.x % kWarpSize;
  const int64_t row = WarpRow();
  if (row >= N) return;
  const S* x = inp + row * C;
  const S* dy = dout + row * C;
  const float s = rstd[row];
  float dot = 0.0f;
  for (int64_t i = lane; i < C; i += kWarpSize) dot += ToFloat(weight[i]) * ToFloat(dy[i]) * ToFloat(x[i]);
  const float k = s * s * WarpSum(dot) / static_cast<float>(C);
  S* dx = dinp + row * C;
  for (int64_t i = lane; i < C; i += kWarpSize) {
    dx[i] = FromFloat<S>(ToFloat(dx[i]) + s * (ToFloat(weight[i]) * ToFloat(dy[i]) - ToFloat(x[i]) * k));
  }
}

// dweight += sum over rows of x * rstd * dy, in a fixed order: block (32 columns) x
// (kOrderedColumnBlockY row lanes); lane y sums rows y, y + lanes, ... in order, then thread
// y = 0 adds the lanes' sums in lane order.
template <typename S>
__global__ void rmsnorm_backward_weight_kernel(float* dweight, const S* dout, const S* inp, const float* rstd,
                                               int64_t N, int64_t C) {
  __shared__ float part[kOrderedColumnBlockY][kColumnBlockX];
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kColumnBlockX + threadIdx.x;
  float dw = 0.0f;
  if (c < C) {
    for (int64_t r = threadIdx.y; r < N; r += kOrderedColumnBlockY) {
      dw += ToFloat(inp[r * C + c]) * rstd[r] * ToFloat(dout[r * C + c]);
    }
  }
  part[threadIdx.y][threadIdx.x] = dw;
  __syncthreads();
  if (threadIdx.y == 0 && c < C) {
    float sum = 0.0f;
    for (int j = 0; j < kOrderedColumnBlockY; ++j) sum += part[j][threadIdx.x];
    dweight[c] += sum;
  }
}

}  // namespace

// ----------------------------------------------------------------------------------------------
// launchers

template <typename S>
void rmsnorm_forward(S* out, float* rstd, const S* inp, const S* weight, int64_t B, int64_t T, int64_t C) {
  MODEL_CUDA_REQUIRE(B >= 1 && T >= 1 && C >= 1, "rmsnorm_forward");
  const LaunchDims d = WarpPerRowLaunch(B * T, kBlock);
  MODEL_CUDA_LAUNCH(rmsnorm_forward_kernel<S>, GridOf(d, "rmsnorm_forward"), BlockOf(d))
  (out, rstd, inp, weight, B * T, C);
  CUDA_CHECK_LAST("rmsnorm_forward");
}

template <typename S>
void rmsnorm_backward(S* dinp, float* dweight, const S* dout, const S* inp, const S* weight,
                      const float* rstd, int64_t B, int64_t T, int64_t C) {
  MODEL_CUDA_REQUIRE(B >= 1 && T >= 1 && C >= 1, "rmsnorm_backward");
  const LaunchDims rows = WarpPerRowLaunch(B * T, kBlock);
  MODEL_CUDA_LAUNCH(rmsnorm_backward_input_kernel<S>, GridOf(rows, "rmsnorm_backward"), BlockOf(rows))
  (dinp, dout, inp, weight, rstd, B * T, C);
  CUDA_CHECK_LAST("rmsnorm_backward");
  const LaunchDims cols = OrderedColumnReduceLaunch(C);
  MODEL_CUDA_LAUNCH(rmsnorm_backward_weight_kernel<S>, GridOf(cols, "rmsnorm_backward"), BlockOf(cols))
  (dweight, dout, inp, rstd, B * T, C);
  CUDA_CHECK_LAST("rmsnorm_backward");
}

template void rmsnorm_forward<float>(float*, float*, const float*, const float*, int64_t, int64_t, int64_t);
template void rmsnorm_forward<Bf16>(Bf16*, float*, const Bf16*, const Bf16*, int64_t, int64_t, int64_t);
template void rmsnorm_backward<float>(float*, float*, const float*, const float*, const float*, const float*,
                                      int64_t, int64_t, int64_t);
template void rmsnorm_backward<Bf16>(Bf16*, float*, const Bf16*, const Bf16*, const Bf16*, const float*,
                                     int64_t, int64_t, int64_t);

}  // namespace cuda
}  // namespace model
