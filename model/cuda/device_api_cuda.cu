// device_api.h on the CUDA runtime, legacy default stream.
#include <cuda_runtime.h>

#include <string>

#include "model/cuda/cuda_check.cuh"
#include "model/cuda/device_api.h"

namespace model {
namespace cuda {

std::string DeviceAlloc(void** ptr, int64_t bytes) {
  const cudaError_t err = cudaMalloc(ptr, static_cast<size_t>(bytes));
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear it: the caller reports the failure, the device is fine
    *ptr = nullptr;
    return std::string("cudaMalloc(") + std::to_string(bytes) + " bytes) failed: " + cudaGetErrorString(err);
  }
  return "";
}

void DeviceFree(void* ptr) {
  if (ptr != nullptr) cudaFree(ptr);  // may fail at exit, when the context is gone: ignored
}

std::string DeviceMemoryInfo(int64_t* free_bytes, int64_t* total_bytes) {
  size_t f = 0, t = 0;
  const cudaError_t err = cudaMemGetInfo(&f, &t);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return std::string("cudaMemGetInfo failed: ") + cudaGetErrorString(err);
  }
  *free_bytes = static_cast<int64_t>(f);
  *total_bytes = static_cast<int64_t>(t);
  return "";
}

std::string DeviceGet(int* device) {
  const cudaError_t err = cudaGetDevice(device);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return std::string("cudaGetDevice failed: ") + cudaGetErrorString(err);
  }
  return "";
}

std::string DeviceSet(int device) {
  const cudaError_t err = cudaSetDevice(device);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return std::string("cudaSetDevice(") + std::to_string(device) + ") failed: " + cudaGetErrorString(err);
  }
  return "";
}

std::string DeviceName(int device) {
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    cudaGetLastError();
    return "";
  }
  return prop.name;
}

void CopyToDevice(void* dst, const void* src, int64_t bytes) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemcpy(dst, src, static_cast<size_t>(bytes), cudaMemcpyHostToDevice));
}

void CopyToHost(void* dst, const void* src, int64_t bytes) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemcpy(dst, src, static_cast<size_t>(bytes), cudaMemcpyDeviceToHost));
}

void CopyDeviceToDevice(void* dst, const void* src, int64_t bytes) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes), cudaMemcpyDeviceToDevice, 0));
}

void MemsetAsync(void* ptr, int value, int64_t bytes) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemsetAsync(ptr, value, static_cast<size_t>(bytes), 0));
}

void DeviceSynchronize() { CUDA_CHECK(cudaDeviceSynchronize()); }

}  // namespace cuda
}  // namespace model
