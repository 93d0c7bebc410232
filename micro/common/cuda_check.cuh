// CHECK macros for the CUDA runtime and cuBLAS: each names the call, file and line.
//
//   MICRO_CUDA_RETURN_IF_ERROR(call)    in a function returning std::string (empty = success):
//   MICRO_CUBLAS_RETURN_IF_ERROR(call)  returns the message, so the caller can skip the case.
//   MICRO_CUDA_CHECK(call)              prints the message and aborts: for cleanup paths and
//                                       anything after which the process cannot go on.
#ifndef MICRO_COMMON_CUDA_CHECK_CUH_
#define MICRO_COMMON_CUDA_CHECK_CUH_

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace micro {

inline std::string CudaErrorMessage(const char* call, cudaError_t err, const char* file, int line) {
  return std::string("CUDA error: ") + call + " returned " + cudaGetErrorName(err) + " (" +
         cudaGetErrorString(err) + ") at " + file + ":" + std::to_string(line);
}

inline std::string CublasErrorMessage(const char* call, cublasStatus_t st, const char* file, int line) {
  return std::string("cuBLAS error: ") + call + " returned " + cublasGetStatusName(st) + " (" +
         cublasGetStatusString(st) + ") at " + file + ":" + std::to_string(line);
}

}  // namespace micro

#define MICRO_CUDA_RETURN_IF_ERROR(call)                                       \
  do {                                                                         \
    cudaError_t micro_err_ = (call);                                           \
    if (micro_err_ != cudaSuccess) {                                           \
      return ::micro::CudaErrorMessage(#call, micro_err_, __FILE__, __LINE__); \
    }                                                                          \
  } while (0)

#define MICRO_CUBLAS_RETURN_IF_ERROR(call)                                      \
  do {                                                                          \
    cublasStatus_t micro_st_ = (call);                                          \
    if (micro_st_ != CUBLAS_STATUS_SUCCESS) {                                   \
      return ::micro::CublasErrorMessage(#call, micro_st_, __FILE__, __LINE__); \
    }                                                                           \
  } while (0)

#define MICRO_CUDA_CHECK(call)                                                                \
  do {                                                                                        \
    cudaError_t micro_err_ = (call);                                                          \
    if (micro_err_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s\n",                                                            \
                   ::micro::CudaErrorMessage(#call, micro_err_, __FILE__, __LINE__).c_str()); \
      std::abort();                                                                           \
    }                                                                                         \
  } while (0)

#endif  // MICRO_COMMON_CUDA_CHECK_CUH_
