// Built without the CUDA toolkit: no cuBLAS or NCCL is linked.
#include "sysinfo/cuda_libs.h"

namespace sysinfo {

CudaLibraryVersions GetCudaLibraryVersions() { return {}; }

}  // namespace sysinfo
