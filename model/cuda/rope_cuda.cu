// RoPE forward / backward: the kernel, then the launchers.
#include <cmath>

#include "model/cuda/bf16.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/launch.cuh"
#include "model/cuda/rope_cuda.h"
#include "model/rope_math.h"

namespace model {
namespace cuda {
namespace {

// ----------------------------------------------------------------------------------------------
// kernels

// One thread per pair (row r = (b, t), head h of the NH + NKV rotated ones, pair i): the pair
// rotated by sign * angle(t, i). Rows are `row` elements long; q's and k's heads are adjacent at
// each row's start.
template <typename S>
__global__ void rope_kernel(S* x, const float* cos, const float* sin, int64_t rows, int64_t T, int64_t heads,
                            int64_t hd, int64_t row, int sign) {
  const int64_t half = hd / 2;
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= rows * heads * half) return;
  const int64_t i = idx % half, h = (idx / half) % heads, r = idx / (half * heads);
  const int64_t t = r % T;
  S* p = x + r * row + h * hd + 2 * i;
  float a = ToFloat(p[0]), b = ToFloat(p[1]);
  RopeRotate(&a, &b, cos[t * half + i], sin[t * half + i], sign);
  p[0] = FromFloat<S>(a);
  p[1] = FromFloat<S>(b);
}

}  // namespace

// ----------------------------------------------------------------------------------------------
// launchers

namespace {

// The one launch behind both directions (sign +1 forward, -1 backward).
template <typename S>
void Rope(const char* name, S* x, const float* cos, const float* sin, int64_t B, int64_t T, int64_t NH,
          int64_t NKV, int64_t hd, int sign) {
  MODEL_CUDA_REQUIRE(B >= 1 && T >= 1 && NH >= 1 && NKV >= 1 && NH % NKV == 0 && hd >= 2 && hd % 2 == 0,
                     name);
  const int64_t heads = NH + NKV, pairs = B * T * heads * (hd / 2);
  const LaunchDims d = ElementwiseLaunch(pairs);
  MODEL_CUDA_LAUNCH(rope_kernel<S>, GridOf(d, name), BlockOf(d))
  (x, cos, sin, B * T, T, heads, hd, (NH + 2 * NKV) * hd, sign);
}

}  // namespace

void RopeTablesHost(float* cos, float* sin, int64_t T, int64_t hd, double theta) {
  const int64_t half = hd / 2;
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t i = 0; i < half; ++i) {
      const double a = RopeAngle(t, i, hd, theta);
      cos[t * half + i] = static_cast<float>(std::cos(a));
      sin[t * half + i] = static_cast<float>(std::sin(a));
    }
  }
}

template <typename S>
void rope_forward(S* qkv, const float* cos, const float* sin, int64_t B, int64_t T, int64_t NH, int64_t NKV,
                  int64_t hd) {
  Rope("rope_forward", qkv, cos, sin, B, T, NH, NKV, hd, +1);
  CUDA_CHECK_LAST("rope_forward");
}

template <typename S>
void rope_backward(S* dqkv, const float* cos, const float* sin, int64_t B, int64_t T, int64_t NH, int64_t NKV,
                   int64_t hd) {
  Rope("rope_backward", dqkv, cos, sin, B, T, NH, NKV, hd, -1);
  CUDA_CHECK_LAST("rope_backward");
}

template void rope_forward<float>(float*, const float*, const float*, int64_t, int64_t, int64_t, int64_t,
                                  int64_t);
template void rope_forward<Bf16>(Bf16*, const float*, const float*, int64_t, int64_t, int64_t, int64_t,
                                 int64_t);
template void rope_backward<float>(float*, const float*, const float*, int64_t, int64_t, int64_t, int64_t,
                                   int64_t);
template void rope_backward<Bf16>(Bf16*, const float*, const float*, int64_t, int64_t, int64_t, int64_t,
                                  int64_t);

}  // namespace cuda
}  // namespace model
