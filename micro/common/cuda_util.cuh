// Shared CUDA helpers for the micro benchmarks: device buffers, a memory check that says what
// is needed and free, the L2 flush, event timing, and the device-side random fill (the same
// HashUniform values the host generates, rounded to the storage type).
#ifndef MICRO_COMMON_CUDA_UTIL_CUH_
#define MICRO_COMMON_CUDA_UTIL_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>

#include "measure/random_fill.h"
#include "micro/common/cuda_check.cuh"

namespace micro {

// Owns one cudaMalloc'd allocation.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  std::string Allocate(size_t bytes);
  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// Error unless `bytes` (plus 256 MiB of slack) fit in the current device's free memory;
// the message gives what is needed, what is free and the total.
std::string CheckDeviceMemory(size_t bytes, const std::string& what);

// Evicts the L2: writes a buffer twice the L2 size (cudaMemsetAsync, a new byte value each
// time) on `stream`. Queued before the start event, it also hides the host's launch latency:
// the GPU is busy with the flush while the host queues the timed work.
class L2Flusher {
 public:
  std::string Init();
  std::string Flush(cudaStream_t stream);
  size_t bytes() const { return buffer_.bytes(); }

 private:
  DeviceBuffer buffer_;
  int value_ = 0;
};

// cudaEvent timing of work queued on `stream`, in seconds.
class EventTimer {
 public:
  ~EventTimer();
  std::string Init();
  // Flushes the L2 (when `flusher` is not null), records start, runs `op` (which queues the
  // work on `stream`), records stop and waits for it.
  std::string Time(cudaStream_t stream, L2Flusher* flusher, const std::function<std::string()>& op,
                   double* seconds);

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

template <typename T>
__host__ __device__ inline T FromFloat(float v);
template <>
__host__ __device__ inline float FromFloat<float>(float v) {
  return v;
}
template <>
__host__ __device__ inline __nv_bfloat16 FromFloat<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__host__ __device__ inline __half FromFloat<__half>(float v) {
  return __float2half_rn(v);
}

__host__ __device__ inline float ToFloat(float v) { return v; }
__host__ __device__ inline float ToFloat(__nv_bfloat16 v) { return __bfloat162float(v); }
__host__ __device__ inline float ToFloat(__half v) { return __half2float(v); }

// ---- kernels ------------------------------------------------------------------------------

// out: (n,). out[i] = HashUniform(seed, i) (HashPositive when positive), rounded to T.
template <typename T>
__global__ void FillHashKernel(T* out, int64_t n, uint64_t seed, bool positive) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float v = positive ? HashPositive(seed, i) : HashUniform(seed, i);
    out[i] = FromFloat<T>(v);
  }
}

// ---- launchers ----------------------------------------------------------------------------

template <typename T>
std::string FillHash(T* out, int64_t n, uint64_t seed, bool positive, cudaStream_t stream) {
  const int block = 256;
  const int64_t blocks = (n + block - 1) / block;
  const int grid = static_cast<int>(blocks < 65536 ? (blocks > 0 ? blocks : 1) : 65536);
  FillHashKernel<T><<<grid, block, 0, stream>>>(out, n, seed, positive);
  MICRO_RETURN_IF_ERROR(cudaGetLastError());
  return "";
}

}  // namespace micro

#endif  // MICRO_COMMON_CUDA_UTIL_CUH_
