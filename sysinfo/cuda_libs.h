// Versions of the CUDA libraries this build links (cuBLAS, NCCL): part of the run context.
// Host-only interface; cuda_libs_cuda.cu asks the libraries (no device needed),
// cuda_libs_none.cc answers "none" where the build has no CUDA toolkit.
#ifndef SYSINFO_CUDA_LIBS_H_
#define SYSINFO_CUDA_LIBS_H_

#include <string>

namespace sysinfo {

struct CudaLibraryVersions {
  std::string cublas = "none";  // "13.1.0"
  std::string nccl = "none";    // "2.27.7"
};

CudaLibraryVersions GetCudaLibraryVersions();

}  // namespace sysinfo

#endif  // SYSINFO_CUDA_LIBS_H_
