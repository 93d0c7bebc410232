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

// Evaluates `call` once; a result other than `ok` goes to `fail` (CudaFail or CublasFail) with
// `text`, the file and the line.
#define MODEL_CUDA_CHECK_RESULT_(type, call, ok, fail, text)             \
  do {                                                                   \
    const type model_cuda_result_ = (call);                              \
    if (model_cuda_result_ != (ok)) {                                    \
      ::model::cuda::fail(text, model_cuda_result_, __FILE__, __LINE__); \
    }                                                                    \
  } while (0)

#define CUDA_CHECK(call) MODEL_CUDA_CHECK_RESULT_(cudaError_t, call, cudaSuccess, CudaFail, #call)

#define CUBLAS_CHECK(call) \
  MODEL_CUDA_CHECK_RESULT_(cublasStatus_t, call, CUBLAS_STATUS_SUCCESS, CublasFail, #call)

// The error of the last kernel launch (bad configuration, no binary for this device), named
// after the launcher that made it.
#define CUDA_CHECK_LAST(launcher)                                                  \
  MODEL_CUDA_CHECK_RESULT_(cudaError_t, cudaGetLastError(), cudaSuccess, CudaFail, \
                           "kernel launch in " launcher)

#endif  // MODEL_CUDA_CUDA_CHECK_CUH_
