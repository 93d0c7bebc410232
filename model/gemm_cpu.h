// Row-major GEMM on the CPU for float and double, so the templated CPU ops run in fp32 for
// training and in fp64 for the gradient check with the same code.
//   C (M, N) = alpha * op(A) (M, K) @ op(B) (K, N) + beta * C
// float: the backend of cpu_gemm_backend.h (oneDNN's matmul primitive, cached per shape, by
// default; oneDNN's dnnl_sgemm; OpenBLAS's sgemm; or under auto the one chosen for the shape). double: OpenBLAS's dgemm (oneDNN has no f64 CPU matmul).
// Called from one thread, either library uses the OpenMP pool; called inside an OpenMP
// parallel region, it runs single-threaded on the calling thread.
#ifndef MODEL_GEMM_CPU_H_
#define MODEL_GEMM_CPU_H_

#include <cstdint>

#include <cblas.h>

#include "model/cpu_gemm_backend.h"
#include "model/onednn_gemm.h"

namespace model {

// On the concrete backend `backend` (not auto).
inline void cpu_gemm_on(CpuGemmBackend backend, bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K,
                        float alpha, const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                        int64_t ldc) {
  if (backend == CpuGemmBackend::kOneDnnSgemm) {
    OneDnnBlasSgemm(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    return;
  }
  if (backend != CpuGemmBackend::kOpenBlas) {
    const OneDnnGemmShape s{trans_a, trans_b, M, N, K, lda, ldb, ldc, alpha, beta};
    OneDnnSgemm(s, A, B, nullptr, C);
    return;
  }
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(M), static_cast<int>(N), static_cast<int>(K), alpha, A, static_cast<int>(lda),
              B, static_cast<int>(ldb), beta, C, static_cast<int>(ldc));
}

inline void cpu_gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                     int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  cpu_gemm_on(ResolveCpuGemmBackend(trans_a, trans_b, M, N, K), trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb,
              beta, C, ldc);
}

inline void cpu_gemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, double alpha,
                     const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
                     int64_t ldc) {
  cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans,
              static_cast<int>(M), static_cast<int>(N), static_cast<int>(K), alpha, A, static_cast<int>(lda),
              B, static_cast<int>(ldb), beta, C, static_cast<int>(ldc));
}

}  // namespace model

#endif  // MODEL_GEMM_CPU_H_
