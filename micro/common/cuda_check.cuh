// Error returns for the CUDA runtime and cuBLAS: each names the call, file and line.
//
//   MICRO_RETURN_IF_ERROR(call)  in a function returning std::string (empty = success), for a
//                                call returning cudaError_t or cublasStatus_t: returns the
//                                message, so the caller can skip the case.
// For cleanup paths and anything after which the process cannot go on, the CUDA model's
// CUDA_CHECK (model/cuda/cuda_check.cuh) prints the same message and aborts.
#ifndef MICRO_COMMON_CUDA_CHECK_CUH_
#define MICRO_COMMON_CUDA_CHECK_CUH_

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

namespace micro {

inline bool Failed(cudaError_t err) { return err != cudaSuccess; }
inline bool Failed(cublasStatus_t st) { return st != CUBLAS_STATUS_SUCCESS; }

inline std::string ErrorMessage(const char* call, cudaError_t err, const char* file, int line) {
  return std::string("CUDA error: ") + call + " returned " + cudaGetErrorName(err) + " (" +
         cudaGetErrorString(err) + ") at " + file + ":" + std::to_string(line);
}

inline std::string ErrorMessage(const char* call, cublasStatus_t st, const char* file, int line) {
  return std::string("cuBLAS error: ") + call + " returned " + cublasGetStatusName(st) + " (" +
         cublasGetStatusString(st) + ") at " + file + ":" + std::to_string(line);
}

}  // namespace micro

// The status type of `call` picks the library's names in the message.
#define MICRO_RETURN_IF_ERROR(call)                                           \
  do {                                                                        \
    const auto micro_status_ = (call);                                        \
    if (::micro::Failed(micro_status_)) {                                     \
      return ::micro::ErrorMessage(#call, micro_status_, __FILE__, __LINE__); \
    }                                                                         \
  } while (0)

#endif  // MICRO_COMMON_CUDA_CHECK_CUH_
