// ProbeCuda for builds without a CUDA toolkit.
#include "sysinfo/cuda_info.h"

namespace sysinfo {

CudaInventory ProbeCuda() {
  CudaInventory inv;
  inv.compiled_with_cuda = false;
  inv.reason = "built without the CUDA toolkit (none found at CUDA_PATH or /usr/local/cuda)";
  return inv;
}

}  // namespace sysinfo
