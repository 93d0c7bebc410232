// The emulator's stand-in for <cublasLt.h>: only the status type that cuda_check.cuh's
// CUBLAS_CHECK names. The emulation build runs GEMMs through gemm_reference.cc, never cuBLAS.
#ifndef CUDA_EMU_INCLUDE_CUBLASLT_H_
#define CUDA_EMU_INCLUDE_CUBLASLT_H_

typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_SUPPORTED = 15 } cublasStatus_t;
inline const char* cublasGetStatusName(cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : "CUBLAS_STATUS_NOT_SUPPORTED";
}
inline const char* cublasGetStatusString(cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS ? "success" : "not supported";
}

#endif  // CUDA_EMU_INCLUDE_CUBLASLT_H_
