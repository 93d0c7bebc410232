// SwiGLU forward / backward: kernels, then launchers.
#include "model/cuda/bf16.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/launch.cuh"
#include "model/cuda/swiglu_cuda.h"
#include "model/swiglu_math.h"

namespace model {
namespace cuda {
namespace {

// ----------------------------------------------------------------------------------------------
// kernels

__device__ __forceinline__ float Sigmoid(float g) { return 1.0f / (1.0f + expf(-g)); }

template <typename S>
__global__ void swiglu_forward_kernel(S* out, const S* inp, int64_t N, int64_t F) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= N * F) return;
  const int64_t r = idx / F, i = idx % F;
  const float g = ToFloat(inp[r * 2 * F + i]), u = ToFloat(inp[r * 2 * F + F + i]);
  out[idx] = FromFloat<S>(SwigluValue(g, u, Sigmoid(g)));
}

template <typename S>
__global__ void swiglu_backward_kernel(S* dinp, const S* dout, const S* inp, int64_t N, int64_t F) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= N * F) return;
  const int64_t r = idx / F, i = idx % F;
  const float g = ToFloat(inp[r * 2 * F + i]), u = ToFloat(inp[r * 2 * F + F + i]);
  float dg = 0.0f, du = 0.0f;
  SwigluGrad(g, u, Sigmoid(g), ToFloat(dout[idx]), &dg, &du);
  dinp[r * 2 * F + i] = FromFloat<S>(dg);
  dinp[r * 2 * F + F + i] = FromFloat<S>(du);
}

}  // namespace

// ----------------------------------------------------------------------------------------------
// launchers

template <typename S>
void swiglu_forward(S* out, const S* inp, int64_t N, int64_t F) {
  MODEL_CUDA_REQUIRE(N >= 1 && F >= 1, "swiglu_forward");
  const LaunchDims d = ElementwiseLaunch(N * F);
  MODEL_CUDA_LAUNCH(swiglu_forward_kernel<S>, GridOf(d, "swiglu_forward"), BlockOf(d))(out, inp, N, F);
  CUDA_CHECK_LAST("swiglu_forward");
}

template <typename S>
void swiglu_backward(S* dinp, const S* dout, const S* inp, int64_t N, int64_t F) {
  MODEL_CUDA_REQUIRE(N >= 1 && F >= 1, "swiglu_backward");
  const LaunchDims d = ElementwiseLaunch(N * F);
  MODEL_CUDA_LAUNCH(swiglu_backward_kernel<S>, GridOf(d, "swiglu_backward"), BlockOf(d))
  (dinp, dout, inp, N, F);
  CUDA_CHECK_LAST("swiglu_backward");
}

template void swiglu_forward<float>(float*, const float*, int64_t, int64_t);
template void swiglu_forward<Bf16>(Bf16*, const Bf16*, int64_t, int64_t);
template void swiglu_backward<float>(float*, const float*, const float*, int64_t, int64_t);
template void swiglu_backward<Bf16>(Bf16*, const Bf16*, const Bf16*, int64_t, int64_t);

}  // namespace cuda
}  // namespace model
