// cuBLAS and NCCL versions as the linked libraries report them (host calls, no device).
#include <cublas_v2.h>
#include <nccl.h>

#include <string>

#include "sysinfo/cuda_libs.h"

namespace sysinfo {

CudaLibraryVersions GetCudaLibraryVersions() {
  CudaLibraryVersions v;
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS) {
    v.cublas = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  }
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess && nccl > 0) {
    // NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch (since 2.9).
    v.nccl = std::to_string(nccl / 10000) + "." + std::to_string(nccl / 100 % 100) + "." +
             std::to_string(nccl % 100);
  }
  return v;
}

}  // namespace sysinfo
