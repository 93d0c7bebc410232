// Error returns for the CUDA runtime and cuBLAS: each names the call, file and line.
//
//   MICRO_RETURN_IF_ERROR(call)  in a function returning std::string (empty = success), for a
//                                call returning cudaError_t or cublasStatus_t: returns the
//                                message (ErrorMessage, model/cuda/cuda_check.cuh), so the
//                                caller can skip the case.
// For cleanup paths and anything after which the process cannot go on, the CUDA model's
// CUDA_CHECK (model/cuda/cuda_check.cuh) prints the same message and aborts.
#ifndef MICRO_COMMON_CUDA_CHECK_CUH_
#define MICRO_COMMON_CUDA_CHECK_CUH_

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>

#include "model/cuda/cuda_check.cuh"

namespace micro {

using ::model::cuda::ErrorMessage;
using ::model::cuda::Failed;

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
