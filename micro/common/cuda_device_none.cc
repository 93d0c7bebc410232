// CurrentCudaDeviceName for builds without the CUDA toolkit.
#include "micro/common/cuda_device.h"

namespace micro {

std::string CurrentCudaDeviceName(std::string* error) {
  *error = "built without the CUDA toolkit";
  return "";
}

}  // namespace micro
