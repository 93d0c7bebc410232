// What every kernel file of the CUDA model shares: the launch macro and warp / block reductions.
//
// MODEL_CUDA_LAUNCH(kernel, grid, block)(args...) is kernel<<<grid, block, 0, stream>>>(args...)
// on the model's stream (model_stream.cuh: the per-thread default stream, which the benchmark's
// events time and a CUDA graph can capture). It is a macro only so that the kernel emulator
// (emu/include/cuda_runtime.h defines it first, and records launches while capturing) can run
// the very same launcher code on a machine without a GPU.
#ifndef MODEL_CUDA_LAUNCH_CUH_
#define MODEL_CUDA_LAUNCH_CUH_

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "model/cuda/launch_config.h"
#include "model/cuda/warp_reduce.cuh"

#ifndef MODEL_CUDA_LAUNCH
#include "model/cuda/model_stream.cuh"
#define MODEL_CUDA_LAUNCH(kernel, grid, block) kernel<<<(grid), (block), 0, ::model::cuda::ModelStream()>>>
#endif

namespace model {
namespace cuda {

// A launcher's shape check: aborts naming the launcher and the violated condition (a wrong
// shape here is a bug in the model, not an input error).
#define MODEL_CUDA_REQUIRE(cond, launcher)                                                               \
  do {                                                                                                   \
    if (!(cond)) {                                                                                       \
      std::fprintf(stderr, "%s: shape check failed: %s (%s:%d)\n", launcher, #cond, __FILE__, __LINE__); \
      std::abort();                                                                                      \
    }                                                                                                    \
  } while (0)

// Checked conversion of launch_config.h's dims.
inline dim3 GridOf(const LaunchDims& d, const char* launcher) {
  const std::string error = CheckLaunch(d);
  if (!error.empty()) {
    std::fprintf(stderr, "%s: bad launch configuration: %s\n", launcher, error.c_str());
    std::abort();
  }
  return dim3(static_cast<unsigned>(d.grid_x), static_cast<unsigned>(d.grid_y), 1);
}
inline dim3 BlockOf(const LaunchDims& d) {
  return dim3(static_cast<unsigned>(d.block_x), static_cast<unsigned>(d.block_y), 1);
}

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = kWarpFullMask;
// Finite stand-in for -inf in max reductions: exp(kNegMax - m) is 0, never NaN.
constexpr float kNegMax = -3.402823466e38f;

// The row this thread's warp owns under WarpPerRowLaunch (blocks of blockDim.x / 32 warps).
__device__ __forceinline__ int64_t WarpRow() {
  return static_cast<int64_t>(blockIdx.x) * (blockDim.x / kWarpSize) + threadIdx.x / kWarpSize;
}

// Sum over a 1-D block whose size is a multiple of 32 (at most 1024); every thread gets the
// result. `scratch` is __shared__ float[32], free on entry and on return. All threads must call.
__device__ __forceinline__ float BlockSum(float v, float* scratch) {
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const int warps = blockDim.x / kWarpSize;
  v = WarpSum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float total = lane < warps ? scratch[lane] : 0.0f;
  total = WarpSum(total);
  __syncthreads();  // scratch may be reused after return
  return total;
}

// 16-byte vectors: kVec<S> elements of storage S (4 floats, 8 bf16) moved with one 128-bit
// access. The address must be 16-byte aligned; launchers pick a vector kernel only when every
// row start is (VecAligned) and fall back to the scalar one otherwise.
template <typename S>
constexpr int kVec = static_cast<int>(16 / sizeof(S));

template <typename S>
struct alignas(16) Vec {
  S e[kVec<S>];
};

template <typename S>
__device__ __forceinline__ Vec<S> LoadVec(const S* p) {
  Vec<S> v;
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<int4*>(&v) = *reinterpret_cast<const int4*>(p);
#else
  std::memcpy(&v, p, sizeof(v));
#endif
  return v;
}

template <typename S>
__device__ __forceinline__ void StoreVec(S* p, const Vec<S>& v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<int4*>(p) = *reinterpret_cast<const int4*>(&v);
#else
  std::memcpy(p, &v, sizeof(v));
#endif
}

// Whether rows of `row_elements` elements starting at `base` all start 16-byte aligned.
template <typename S>
inline bool VecAligned(const void* base, int64_t row_elements) {
  return reinterpret_cast<uintptr_t>(base) % 16 == 0 && row_elements % kVec<S> == 0;
}

// Online-softmax pair (running max m, sum s of exp(x - m)), merged exactly.
struct MaxSum {
  float m;
  float s;
};

__device__ __forceinline__ MaxSum MergeMaxSum(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  return MaxSum{m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

// Adds one value x to a running MaxSum.
__device__ __forceinline__ void OnlineAdd(MaxSum& acc, float x) {
  if (x > acc.m) {
    acc.s = acc.s * expf(acc.m - x) + 1.0f;
    acc.m = x;
  } else {
    acc.s += expf(x - acc.m);
  }
}

__device__ __forceinline__ MaxSum WarpMaxSum(MaxSum v) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    MaxSum o{__shfl_xor_sync(kFullMask, v.m, offset), __shfl_xor_sync(kFullMask, v.s, offset)};
    v = MergeMaxSum(v, o);
  }
  return v;
}

// MaxSum over a 1-D block (size a multiple of 32); every thread gets the result.
// `scratch_m`, `scratch_s` are __shared__ float[32].
__device__ __forceinline__ MaxSum BlockMaxSum(MaxSum v, float* scratch_m, float* scratch_s) {
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  const int warps = blockDim.x / kWarpSize;
  v = WarpMaxSum(v);
  if (lane == 0) {
    scratch_m[warp] = v.m;
    scratch_s[warp] = v.s;
  }
  __syncthreads();
  MaxSum total = lane < warps ? MaxSum{scratch_m[lane], scratch_s[lane]} : MaxSum{kNegMax, 0.0f};
  total = WarpMaxSum(total);
  __syncthreads();
  return total;
}

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_LAUNCH_CUH_
