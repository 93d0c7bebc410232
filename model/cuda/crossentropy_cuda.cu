// Classifier loss forward (log-sum-exp per row) and in-place gradient: kernels, then launchers.
#include "model/cuda/bf16.h"
#include "model/cuda/crossentropy_cuda.h"
#include "model/cuda/cuda_check.cuh"
#include "model/cuda/launch.cuh"

namespace model {
namespace cuda {
namespace {

constexpr int kBlock = 512;

// ----------------------------------------------------------------------------------------------
// kernels

// The end of both forward kernels: the block merges the threads' (max, sum of exp) of row `row`
// (x: its logits) exactly, and thread 0 writes its log-sum-exp and loss.
template <typename S>
__device__ __forceinline__ void FinishForwardRow(MaxSum acc, float* losses, float* lse, const S* x,
                                                 const int32_t* targets, int64_t row) {
  __shared__ float scratch_m[32];
  __shared__ float scratch_s[32];
  const MaxSum total = BlockMaxSum(acc, scratch_m, scratch_s);
  if (threadIdx.x == 0) {
    const float l = total.m + logf(total.s);
    lse[row] = l;
    losses[row] = l - ToFloat(x[targets[row]]);
  }
}

// The gradient of the loss scaled by dloss at entry i of a row with logit x and log-sum-exp l:
// softmax minus the one-hot target; 0 in the padding (i >= V).
__device__ __forceinline__ float CrossEntropyGrad(float x, int64_t i, float l, int64_t target, float dloss,
                                                  int64_t V) {
  if (i >= V) return 0.0f;
  float g = expf(x - l) * dloss;
  if (i == target) g -= dloss;
  return g;
}

// One block per row: each thread keeps an online (max, sum of exp) over a strided part of the
// row, the block merges them exactly. (Scalar accesses: for rows not 16-byte aligned.)
template <typename S>
__global__ void crossentropy_forward_kernel(float* losses, float* lse, const S* logits,
                                            const int32_t* targets, int64_t V, int64_t Vp) {
  const int64_t row = blockIdx.x;
  const S* x = logits + row * Vp;
  MaxSum acc{kNegMax, 0.0f};
  for (int64_t i = threadIdx.x; i < V; i += blockDim.x) OnlineAdd(acc, ToFloat(x[i]));
  FinishForwardRow(acc, losses, lse, x, targets, row);
}

// One block per row, in place: softmax from the saved log-sum-exp, minus the one-hot target.
template <typename S>
__global__ void crossentropy_softmax_backward_kernel(S* logits, const float* lse, const int32_t* targets,
                                                     float dloss, int64_t V, int64_t Vp) {
  const int64_t row = blockIdx.x;
  S* x = logits + row * Vp;
  const float l = lse[row];
  const int64_t target = targets[row];
  for (int64_t i = threadIdx.x; i < Vp; i += blockDim.x) {
    x[i] = FromFloat<S>(CrossEntropyGrad(ToFloat(x[i]), i, l, target, dloss, V));
  }
}

// The two kernels above with 16-byte accesses (Vp a multiple of kVec<S>, rows aligned).
template <typename S>
__global__ void crossentropy_forward_vec_kernel(float* losses, float* lse, const S* logits,
                                                const int32_t* targets, int64_t V, int64_t Vp) {
  constexpr int W = kVec<S>;
  const int64_t row = blockIdx.x;
  const S* x = logits + row * Vp;
  MaxSum acc{kNegMax, 0.0f};
  for (int64_t c = threadIdx.x; c * W < V; c += blockDim.x) {
    const Vec<S> v = LoadVec(x + c * W);
    for (int e = 0; e < W; ++e) {
      if (c * W + e < V) OnlineAdd(acc, ToFloat(v.e[e]));
    }
  }
  FinishForwardRow(acc, losses, lse, x, targets, row);
}

template <typename S>
__global__ void crossentropy_softmax_backward_vec_kernel(S* logits, const float* lse, const int32_t* targets,
                                                         float dloss, int64_t V, int64_t Vp) {
  constexpr int W = kVec<S>;
  const int64_t row = blockIdx.x;
  S* x = logits + row * Vp;
  const float l = lse[row];
  const int64_t target = targets[row];
  for (int64_t c = threadIdx.x; c * W < Vp; c += blockDim.x) {
    Vec<S> v = LoadVec(x + c * W);
    for (int e = 0; e < W; ++e) {
      v.e[e] = FromFloat<S>(CrossEntropyGrad(ToFloat(v.e[e]), c * W + e, l, target, dloss, V));
    }
    StoreVec(x + c * W, v);
  }
}

}  // namespace

// ----------------------------------------------------------------------------------------------
// launchers

template <typename S>
void crossentropy_forward(float* losses, float* lse, const S* logits, const int32_t* targets, int64_t B,
                          int64_t T, int64_t V, int64_t Vp) {
  MODEL_CUDA_REQUIRE(B >= 1 && T >= 1 && V >= 1 && Vp >= V, "crossentropy_forward");
  const LaunchDims d = BlockPerRowLaunch(B * T, kBlock);
  if (VecAligned<S>(logits, Vp)) {
    MODEL_CUDA_LAUNCH(crossentropy_forward_vec_kernel<S>, GridOf(d, "crossentropy_forward"), BlockOf(d))
    (losses, lse, logits, targets, V, Vp);
  } else {
    MODEL_CUDA_LAUNCH(crossentropy_forward_kernel<S>, GridOf(d, "crossentropy_forward"), BlockOf(d))
    (losses, lse, logits, targets, V, Vp);
  }
  CUDA_CHECK_LAST("crossentropy_forward");
}

template <typename S>
void crossentropy_softmax_backward(S* logits, const float* lse, const int32_t* targets, float dloss,
                                   int64_t B, int64_t T, int64_t V, int64_t Vp) {
  MODEL_CUDA_REQUIRE(B >= 1 && T >= 1 && V >= 1 && Vp >= V, "crossentropy_softmax_backward");
  const LaunchDims d = BlockPerRowLaunch(B * T, kBlock);
  if (VecAligned<S>(logits, Vp)) {
    MODEL_CUDA_LAUNCH(crossentropy_softmax_backward_vec_kernel<S>, GridOf(d, "crossentropy_softmax_backward"),
                      BlockOf(d))
    (logits, lse, targets, dloss, V, Vp);
  } else {
    MODEL_CUDA_LAUNCH(crossentropy_softmax_backward_kernel<S>, GridOf(d, "crossentropy_softmax_backward"),
                      BlockOf(d))
    (logits, lse, targets, dloss, V, Vp);
  }
  CUDA_CHECK_LAST("crossentropy_softmax_backward");
}

template void crossentropy_forward<float>(float*, float*, const float*, const int32_t*, int64_t, int64_t,
                                          int64_t, int64_t);
template void crossentropy_forward<Bf16>(float*, float*, const Bf16*, const int32_t*, int64_t, int64_t,
                                         int64_t, int64_t);
template void crossentropy_softmax_backward<float>(float*, const float*, const int32_t*, float, int64_t,
                                                   int64_t, int64_t, int64_t);
template void crossentropy_softmax_backward<Bf16>(Bf16*, const float*, const int32_t*, float, int64_t,
                                                  int64_t, int64_t, int64_t);

}  // namespace cuda
}  // namespace model
