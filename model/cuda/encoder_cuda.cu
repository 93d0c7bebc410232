// Token + position embedding forward / backward: kernels, then launchers.
#include "model/cuda/bf16.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/encoder_cuda.h"
#include "model/cuda/launch.cuh"

namespace model {
namespace cuda {
namespace {

// ----------------------------------------------------------------------------------------------
// kernels

// One thread per output element; wpe null (RoPE's models): the token's row alone.
template <typename S>
__global__ void encoder_forward_kernel(S* out, const int32_t* inp, const S* wte, const S* wpe, int64_t BT,
                                       int64_t T, int64_t C) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= BT * C) return;
  const int64_t bt = idx / C, c = idx % C, t = bt % T;
  const int64_t token = inp[bt];
  if (wpe == nullptr) {
    out[idx] = wte[token * C + c];
    return;
  }
  out[idx] = FromFloat<S>(ToFloat(wte[token * C + c]) + ToFloat(wpe[t * C + c]));
}

// One thread per element of dout: scatter-add into the token's row.
template <typename S>
__global__ void encoder_backward_wte_kernel(float* dwte, const S* dout, const int32_t* inp, int64_t BT,
                                            int64_t C) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= BT * C) return;
  const int64_t bt = idx / C, c = idx % C;
  atomicAdd(dwte + static_cast<int64_t>(inp[bt]) * C + c, ToFloat(dout[idx]));
}

// One thread per (t, c): sums the B rows in order, no atomics.
template <typename S>
__global__ void encoder_backward_wpe_kernel(float* dwpe, const S* dout, int64_t B, int64_t T, int64_t C) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= T * C) return;
  float sum = 0.0f;
  for (int64_t b = 0; b < B; ++b) sum += ToFloat(dout[b * T * C + idx]);
  dwpe[idx] += sum;
}

}  // namespace

// ----------------------------------------------------------------------------------------------
// launchers

template <typename S>
void encoder_forward(S* out, const int32_t* inp, const S* wte, const S* wpe, int64_t B, int64_t T,
                     int64_t C) {
  MODEL_CUDA_REQUIRE(B >= 1 && T >= 1 && C >= 1, "encoder_forward");
  const LaunchDims d = ElementwiseLaunch(B * T * C);
  MODEL_CUDA_LAUNCH(encoder_forward_kernel<S>, GridOf(d, "encoder_forward"), BlockOf(d))
  (out, inp, wte, wpe, B * T, T, C);
  CUDA_CHECK_LAST("encoder_forward");
}

template <typename S>
void encoder_backward(float* dwte, float* dwpe, const S* dout, const int32_t* inp, int64_t B, int64_t T,
                      int64_t C) {
  MODEL_CUDA_REQUIRE(B >= 1 && T >= 1 && C >= 1, "encoder_backward");
  const LaunchDims dte = ElementwiseLaunch(B * T * C);
  MODEL_CUDA_LAUNCH(encoder_backward_wte_kernel<S>, GridOf(dte, "encoder_backward"), BlockOf(dte))
  (dwte, dout, inp, B * T, C);
  CUDA_CHECK_LAST("encoder_backward");
  if (dwpe == nullptr) return;  // no position table (RoPE)
  const LaunchDims dpe = ElementwiseLaunch(T * C);
  MODEL_CUDA_LAUNCH(encoder_backward_wpe_kernel<S>, GridOf(dpe, "encoder_backward"), BlockOf(dpe))
  (dwpe, dout, B, T, C);
  CUDA_CHECK_LAST("encoder_backward");
}

template void encoder_forward<float>(float*, const int32_t*, const float*, const float*, int64_t, int64_t,
                                     int64_t);
template void encoder_forward<Bf16>(Bf16*, const int32_t*, const Bf16*, const Bf16*, int64_t, int64_t,
                                    int64_t);
template void encoder_backward<float>(float*, float*, const float*, const int32_t*, int64_t, int64_t,
                                      int64_t);
template void encoder_backward<Bf16>(float*, float*, const Bf16*, const int32_t*, int64_t, int64_t, int64_t);

}  // namespace cuda
}  // namespace model
