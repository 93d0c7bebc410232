// The current CUDA device, behind a host-only interface (cuda_device_cuda.cu implements it;
// cuda_device_none.cc where the build has no CUDA toolkit).
#ifndef MICRO_COMMON_CUDA_DEVICE_H_
#define MICRO_COMMON_CUDA_DEVICE_H_

#include <string>

namespace micro {

// Name of the current CUDA device (cudaDeviceProp::name), or "" with *error set.
std::string CurrentCudaDeviceName(std::string* error);

}  // namespace micro

#endif  // MICRO_COMMON_CUDA_DEVICE_H_
