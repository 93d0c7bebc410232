// CurrentCudaDeviceName (cuda_device.h) on the CUDA runtime.
#include <cuda_runtime.h>

#include "micro/common/cuda_check.cuh"
#include "micro/common/cuda_device.h"

namespace micro {

std::string CurrentCudaDeviceName(std::string* error) {
  int dev = 0;
  cudaError_t err = cudaGetDevice(&dev);
  cudaDeviceProp prop;
  if (err == cudaSuccess) err = cudaGetDeviceProperties(&prop, dev);
  if (err != cudaSuccess) {
    *error = ErrorMessage("cudaGetDeviceProperties", err, __FILE__, __LINE__);
    return "";
  }
  return prop.name;
}

}  // namespace micro
