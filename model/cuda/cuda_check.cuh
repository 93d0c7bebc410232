// CHECK macros for the CUDA runtime and cuBLAS(Lt) calls of the CUDA model. Each failure names
// the call's text, the error, the file and the line, then aborts: a failed kernel launch or
// cuBLAS call leaves the device in an unknown state, so the process cannot go on (llm.c's
// cudaCheck / cublasCheck). Errors a caller can act on (no device, not enough memory) are
// found before any of these run and are returned as absl::Status by cuda_model.h.
//
//   CUDA_CHECK(cudaMemcpy(...));
//   CUBLAS_CHECK(cublasLtMatmul(...));
//   CUDA_CHECK_LAST("layernorm_forward");   // after a kernel launch: the launch error, if any
#ifndef MODEL_CUDA_CUDA_CHECK_CUH_
#define MODEL_CUDA_CUDA_CHECK_CUH_

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace model {
namespace cuda {

[[noreturn]] inline void CudaFail(const char* call, cudaError_t err, const char* file, int line) {
  std::fprintf(stderr, "CUDA error: %s returned %s (%s) at %s:%d\n", call, cudaGetErrorName(err),
               cudaGetErrorString(err), file, line);
  std::abort();
}

[[noreturn]] inline void CublasFail(const char* call, cublasStatus_t st, const char* file, int line) {
  std::fprintf(stderr, "cuBLAS error: %s returned %s (%s) at %s:%d\n", call, cublasGetStatusName(st),
               cublasGetStatusString(st), file, line);
  std::abort();
}

}  // namespace cuda
}  // namespace model

#define CUDA_CHECK(call)                                                   \
  do {                                                                     \
    const cudaError_t model_cuda_err_ = (call);                            \
    if (model_cuda_err_ != cudaSuccess) {                                  \
      ::model::cuda::CudaFail(#call, model_cuda_err_, __FILE__, __LINE__); \
    }                                                                      \
  } while (0)

#define CUBLAS_CHECK(call)                                                    \
  do {                                                                        \
    const cublasStatus_t model_cublas_st_ = (call);                           \
    if (model_cublas_st_ != CUBLAS_STATUS_SUCCESS) {                          \
      ::model::cuda::CublasFail(#call, model_cublas_st_, __FILE__, __LINE__); \
    }                                                                         \
  } while (0)

// The error of the last kernel launch (bad configuration, no binary for this device), named
// after the launcher that made it.
#define CUDA_CHECK_LAST(launcher)                                                                 \
  do {                                                                                            \
    const cudaError_t model_cuda_err_ = cudaGetLastError();                                       \
    if (model_cuda_err_ != cudaSuccess) {                                                         \
      ::model::cuda::CudaFail("kernel launch in " launcher, model_cuda_err_, __FILE__, __LINE__); \
    }                                                                                             \
  } while (0)

#endif  // MODEL_CUDA_CUDA_CHECK_CUH_
