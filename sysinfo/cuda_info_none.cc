// ProbeCuda for builds without a CUDA toolkit.
#include "sysinfo/cuda_info.h"

namespace sysinfo {

namespace {
constexpr char kNoToolkit[] = "built without the CUDA toolkit (none found at CUDA_PATH or /usr/local/cuda)";
}  // namespace

CudaInventory ProbeCuda(CudaProbe) {
  CudaInventory inv;
  inv.compiled_with_cuda = false;
  inv.reason = kNoToolkit;
  return inv;
}

std::string SelectCudaDevice(int index) {
  return "cannot select CUDA device " + std::to_string(index) + ": " + kNoToolkit;
}

}  // namespace sysinfo
