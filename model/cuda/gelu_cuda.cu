// GeLU forward / backward: kernels, then launchers.
#include "model/cuda/bf16.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/gelu_cuda.h"
#include "model/cuda/launch.cuh"
#include "model/gelu_math.h"

namespace model {
namespace cuda {
namespace {

// ----------------------------------------------------------------------------------------------
// kernels

template <typename S>
__global__ void gelu_forward_kernel(S* out, const S* inp, int64_t N) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= N) return;
  const float x = ToFloat(inp[i]);
  out[i] = FromFloat<S>(gelu_from_tanh(x, tanhf(gelu_tanh_arg(x))));
}

// dinp may alias dout: each thread reads its element before writing it.
template <typename S>
__global__ void gelu_backward_kernel(S* dinp, const S* inp, const S* dout, int64_t N) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= N) return;
  const float x = ToFloat(inp[i]);
  const float g = gelu_grad_from_tanh(x, tanhf(gelu_tanh_arg(x)));
  dinp[i] = FromFloat<S>(g * ToFloat(dout[i]));
}

}  // namespace

// ----------------------------------------------------------------------------------------------
// launchers

template <typename S>
void gelu_forward(S* out, const S* inp, int64_t N) {
  MODEL_CUDA_REQUIRE(N >= 1, "gelu_forward");
  const LaunchDims d = ElementwiseLaunch(N);
  MODEL_CUDA_LAUNCH(gelu_forward_kernel<S>, GridOf(d, "gelu_forward"), BlockOf(d))(out, inp, N);
  CUDA_CHECK_LAST("gelu_forward");
}

template <typename S>
void gelu_backward(S* dinp, const S* inp, const S* dout, int64_t N) {
  MODEL_CUDA_REQUIRE(N >= 1, "gelu_backward");
  const LaunchDims d = ElementwiseLaunch(N);
  MODEL_CUDA_LAUNCH(gelu_backward_kernel<S>, GridOf(d, "gelu_backward"), BlockOf(d))(dinp, inp, dout, N);
  CUDA_CHECK_LAST("gelu_backward");
}

template void gelu_forward<float>(float*, const float*, int64_t);
template void gelu_forward<Bf16>(Bf16*, const Bf16*, int64_t);
template void gelu_backward<float>(float*, const float*, const float*, int64_t);
template void gelu_backward<Bf16>(Bf16*, const Bf16*, const Bf16*, int64_t);

}  // namespace cuda
}  // namespace model
