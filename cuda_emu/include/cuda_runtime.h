// The emulator's stand-in for <cuda_runtime.h>: just the CUDA surface the model's launcher
// sources use, mapped onto cuda_emu/emu.h. Only the emulation build (BUILD target
// ":cuda_ops_emu") puts this folder on the include path; the real build never sees it.
#ifndef CUDA_EMU_INCLUDE_CUDA_RUNTIME_H_
#define CUDA_EMU_INCLUDE_CUDA_RUNTIME_H_

#include <cmath>
#include <cstdint>

#include "cuda_emu/emu.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__ __restrict
// One block runs at a time, so a function-local static is that block's shared memory.
#define __shared__ static

using dim3 = ::emu::Dim3;

#define threadIdx (::emu::ThreadIdx())
#define blockIdx (::emu::BlockIdx())
#define blockDim (::emu::BlockDim())
#define gridDim (::emu::GridDim())

// kernel<<<grid, block>>>(args) in emulation; model/cuda/launch.cuh defines the real one.
#define MODEL_CUDA_LAUNCH(kernel, grid, block) ::emu::Launch((grid), (block), kernel)

inline void __syncthreads() { ::emu::SyncThreads(); }
inline void __syncwarp(unsigned = 0xffffffffu) { ::emu::SyncWarp(); }

template <typename T>
inline T __shfl_sync(unsigned, T v, int src_lane, int = 32) {
  return ::emu::ShuffleFrom(v, src_lane);
}
template <typename T>
inline T __shfl_xor_sync(unsigned, T v, int lane_mask, int = 32) {
  return ::emu::ShuffleFrom(v, ::emu::LaneId() ^ lane_mask);
}
template <typename T>
inline T __shfl_down_sync(unsigned, T v, unsigned delta, int = 32) {
  return ::emu::ShuffleFrom(v, ::emu::LaneId() + static_cast<int>(delta));
}

// Fibers of one OS thread never interleave inside an atomic: a plain read-modify-write.
inline float atomicAdd(float* address, float v) {
  const float old = *address;
  *address = old + v;
  return old;
}
inline int atomicAdd(int* address, int v) {
  const int old = *address;
  *address = old + v;
  return old;
}

inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __fdividef(float a, float b) { return a / b; }

typedef enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1 } cudaError_t;
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaPeekAtLastError() { return cudaSuccess; }
inline const char* cudaGetErrorName(cudaError_t e) {
  return e == cudaSuccess ? "cudaSuccess" : "cudaErrorInvalidValue";
}
inline const char* cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "invalid argument";
}

#endif  // CUDA_EMU_INCLUDE_CUDA_RUNTIME_H_
