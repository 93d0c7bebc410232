// LayerNorm forward / backward: kernels, then launchers.
#include "model/cuda/bf16.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/launch.cuh"
#include "model/cuda/layernorm_cuda.h"
#include "model/layernorm_math.h"

namespace model {
namespace cuda {
namespace {

constexpr int kBlock = 256;

// ----------------------------------------------------------------------------------------------
// kernels

// One warp per row: mean, then the variance around it (two passes over the row, which stays in
// L1), then the normalised, scaled and shifted output.
template <typename S>
__global__ void layernorm_forward_kernel(S* out, float* mean, float* rstd, const S* inp, const S* weight,
                                         const S* bias, int64_t N, int64_t C) {
  const int lane = threadIdx.x % kWarpSize;
  const int64_t row = WarpRow();
  if (row >= N) return;  // the whole warp leaves together
  const S* x = inp + row * C;
  float sum = 0.0f;
  for (int64_t i = lane; i < C; i += kWarpSize) sum += ToFloat(x[i]);
  const float m = WarpSum(sum) / static_cast<float>(C);
  float var = 0.0f;
  for (int64_t i = lane; i < C; i += kWarpSize) {
    const float d = ToFloat(x[i]) - m;
    var += d * d;
  }
  const float s = 1.0f / sqrtf(WarpSum(var) / static_cast<float>(C) + kLayerNormEps);
  S* o = out + row * C;
  for (int64_t i = lane; i < C; i += kWarpSize) {
    float y = (ToFloat(x[i]) - m) * s * ToFloat(weight[i]);
    if (bias != nullptr) y += ToFloat(bias[i]);
    o[i] = FromFloat<S>(y);
  }
  if (lane == 0) {
    mean[row] = m;
    rstd[row] = s;
  }
}

// One warp per row: dinp += rstd * (w*dout - mean(w*dout) - norm * mean(w*dout*norm)).
template <typename S>
__global__ void layernorm_backward_input_kernel(S* dinp, const S* dout, const S* inp, const S* weight,
                                                const float* mean, const float* rstd, int64_t N, int64_t C) {
  const int lane = threadIdx.x % kWarpSize;
  const int64_t row = WarpRow();
  if (row >= N) return;
  const S* x = inp + row * C;
  const S* dy = dout + row * C;
  const float m = mean[row], s = rstd[row];
  float dnorm_mean = 0.0f, dnorm_norm_mean = 0.0f;
  for (int64_t i = lane; i < C; i += kWarpSize) {
    const float norm = (ToFloat(x[i]) - m) * s;
    const float dnorm = ToFloat(weight[i]) * ToFloat(dy[i]);
    dnorm_mean += dnorm;
    dnorm_norm_mean += dnorm * norm;
  }
  dnorm_mean = WarpSum(dnorm_mean) / static_cast<float>(C);
  dnorm_norm_mean = WarpSum(dnorm_norm_mean) / static_cast<float>(C);
  S* dx = dinp + row * C;
  for (int64_t i = lane; i < C; i += kWarpSize) {
    const float norm = (ToFloat(x[i]) - m) * s;
    const float dnorm = ToFloat(weight[i]) * ToFloat(dy[i]);
    dx[i] = FromFloat<S>(ToFloat(dx[i]) + (dnorm - dnorm_mean - norm * dnorm_norm_mean) * s);
  }
}

// Column sums: block (32 columns) x (kColumnBlockY row lanes), grid.y row ranges; the partial
// sums of a block meet in shared memory, those of the row ranges with atomicAdd.
template <typename S>
__global__ void layernorm_backward_params_kernel(float* dweight, float* dbias, const S* dout, const S* inp,
                                                 const float* mean, const float* rstd, int64_t N, int64_t C) {
  __shared__ float part_w[kColumnBlockY][kColumnBlockX];
  __shared__ float part_b[kColumnBlockY][kColumnBlockX];
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kColumnBlockX + threadIdx.x;
  float dw = 0.0f, db = 0.0f;
  if (c < C) {
    const int64_t step = static_cast<int64_t>(gridDim.y) * kColumnBlockY;
    for (int64_t r = static_cast<int64_t>(blockIdx.y) * kColumnBlockY + threadIdx.y; r < N; r += step) {
      const float dy = ToFloat(dout[r * C + c]);
      dw += (ToFloat(inp[r * C + c]) - mean[r]) * rstd[r] * dy;
      db += dy;
    }
  }
  part_w[threadIdx.y][threadIdx.x] = dw;
  part_b[threadIdx.y][threadIdx.x] = db;
  __syncthreads();
  if (threadIdx.y == 0 && c < C) {
    float sw = 0.0f, sb = 0.0f;
    for (int j = 0; j < kColumnBlockY; ++j) {
      sw += part_w[j][threadIdx.x];
      sb += part_b[j][threadIdx.x];
    }
    atomicAdd(dweight + c, sw);
    if (dbias != nullptr) atomicAdd(dbias + c, sb);
  }
}

}  // namespace

// ----------------------------------------------------------------------------------------------
// launchers

template <typename S>
void layernorm_forward(S* out, float* mean, float* rstd, const S* inp, const S* weight, const S* bias,
                       int64_t B, int64_t T, int64_t C) {
  MODEL_CUDA_REQUIRE(B >= 1 && T >= 1 && C >= 1, "layernorm_forward");
  const LaunchDims d = WarpPerRowLaunch(B * T, kBlock);
  MODEL_CUDA_LAUNCH(layernorm_forward_kernel<S>, GridOf(d, "layernorm_forward"), BlockOf(d))
  (out, mean, rstd, inp, weight, bias, B * T, C);
  CUDA_CHECK_LAST("layernorm_forward");
}

template <typename S>
void layernorm_backward(S* dinp, float* dweight, float* dbias, const S* dout, const S* inp, const S* weight,
                        const float* mean, const float* rstd, int64_t B, int64_t T, int64_t C) {
  MODEL_CUDA_REQUIRE(B >= 1 && T >= 1 && C >= 1, "layernorm_backward");
  const LaunchDims rows = WarpPerRowLaunch(B * T, kBlock);
  MODEL_CUDA_LAUNCH(layernorm_backward_input_kernel<S>, GridOf(rows, "layernorm_backward"), BlockOf(rows))
  (dinp, dout, inp, weight, mean, rstd, B * T, C);
  CUDA_CHECK_LAST("layernorm_backward");
  const LaunchDims cols = ColumnReduceLaunch(B * T, C);
  MODEL_CUDA_LAUNCH(layernorm_backward_params_kernel<S>, GridOf(cols, "layernorm_backward"), BlockOf(cols))
  (dweight, dbias, dout, inp, mean, rstd, B * T, C);
  CUDA_CHECK_LAST("layernorm_backward");
}

template void layernorm_forward<float>(float*, float*, float*, const float*, const float*, const float*,
                                       int64_t, int64_t, int64_t);
template void layernorm_forward<Bf16>(Bf16*, float*, float*, const Bf16*, const Bf16*, const Bf16*, int64_t,
                                      int64_t, int64_t);
template void layernorm_backward<float>(float*, float*, float*, const float*, const float*, const float*,
                                        const float*, const float*, int64_t, int64_t, int64_t);
template void layernorm_backward<Bf16>(Bf16*, float*, float*, const Bf16*, const Bf16*, const Bf16*,
                                       const float*, const float*, int64_t, int64_t, int64_t);

}  // namespace cuda
}  // namespace model
