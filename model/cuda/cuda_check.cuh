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
#include <string>

namespace model {
namespace cuda {

inline bool Failed(cudaError_t err) { return err != cudaSuccess; }
inline bool Failed(cublasStatus_t st) { return st != CUBLAS_STATUS_SUCCESS; }

// "CUDA error: CALL returned NAME (text) at FILE:LINE", and the same for cuBLAS: what the CHECK
// macros print, and what micro's error returns (micro/common/cuda_check.cuh) return.
inline std::string ErrorMessage(const char* call, cudaError_t err, const char* file, int line) {
  return std::string("CUDA error: ") + call + " returned " + cudaGetErrorName(err) + " (" +
         cudaGetErrorString(err) + ") at " + file + ":" + std::to_string(line);
}

inline std::string ErrorMessage(const char* call, cublasStatus_t st, const char* file, int line) {
  return std::string("cuBLAS error: ") + call + " returned " + cublasGetStatusName(st) + " (" +
         cublasGetStatusString(st) + ") at " + file + ":" + std::to_string(line);
}

// Prints ErrorMessage and aborts.
template <typename Result>
[[noreturn]] void Fail(const char* call, Result result, const char* file, int line) {
  std::fprintf(stderr, "%s\n", ErrorMessage(call, result, file, line).c_str());
  std::abort();
}

}  // namespace cuda
}  // namespace model

// Evaluates `call` (of type `type`) once; a failed result aborts with `text`, the file and line.
#define MODEL_CUDA_CHECK_RESULT_(type, call, text)                       \
  do {                                                                   \
    const type model_cuda_result_ = (call);                              \
    if (::model::cuda::Failed(model_cuda_result_)) {                     \
      ::model::cuda::Fail(text, model_cuda_result_, __FILE__, __LINE__); \
    }                                                                    \
  } while (0)

#define CUDA_CHECK(call) MODEL_CUDA_CHECK_RESULT_(cudaError_t, call, #call)

#define CUBLAS_CHECK(call) MODEL_CUDA_CHECK_RESULT_(cublasStatus_t, call, #call)

// The error of the last kernel launch (bad configuration, no binary for this device), named
// after the launcher that made it.
#define CUDA_CHECK_LAST(launcher) \
  MODEL_CUDA_CHECK_RESULT_(cudaError_t, cudaGetLastError(), "kernel launch in " launcher)

#endif  // MODEL_CUDA_CUDA_CHECK_CUH_
