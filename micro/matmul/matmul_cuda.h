// A cuBLAS GEMM case on the current CUDA device, behind a host-only interface (no CUDA or
// Abseil headers, so plain .cc files include it; matmul_cuda.cu implements it, and
// matmul_cuda_none.cc where the build has no CUDA toolkit).
//
// C: (m, n) = A: (m, k) @ B: (k, n), row-major (cuBLAS computes C^T = B^T A^T in its
// column-major terms). Storage and math by type:
//   kFp32  fp32 in/out, CUBLAS_COMPUTE_32F
//   kTf32  fp32 in/out, CUBLAS_COMPUTE_32F_FAST_TF32 (tensor cores, 10-bit mantissa inputs)
//   kBf16  bf16 in/out, fp32 accumulate (CUBLAS_COMPUTE_32F)
//   kFp16  fp16 in/out, fp32 accumulate (CUBLAS_COMPUTE_32F)
// Errors are returned as text (empty = success) naming the failed call, file and line.
#ifndef MICRO_MATMUL_MATMUL_CUDA_H_
#define MICRO_MATMUL_MATMUL_CUDA_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace micro {

enum class CudaGemmType { kFp32, kTf32, kBf16, kFp16 };

class CudaMatmul {
 public:
  // Checks free memory, allocates A, B, C and an L2-flush buffer, fills A and B with
  // HashUniform values (seeds 11 and 12) rounded to the storage type, and C with junk.
  // nullptr and *error set on failure.
  static std::unique_ptr<CudaMatmul> Create(CudaGemmType type, int64_t m, int64_t k, int64_t n,
                                            std::string* error);
  virtual ~CudaMatmul() = default;

  // Runs the GEMM once and copies back, as fp32, for each sampled (row, col):
  // a_rows: (S, k) row `row` of A; b_cols: (S, k) column `col` of B; c_entries: (S) the entry
  // of C.
  virtual std::string RunAndGather(const std::vector<std::pair<int64_t, int64_t>>& entries,
                                   std::vector<float>* a_rows, std::vector<float>* b_cols,
                                   std::vector<float>* c_entries) = 0;

  // Flushes the L2 (outside the timed region), then times one GEMM with cudaEvents.
  virtual std::string TimeOnce(double* seconds) = 0;
};

}  // namespace micro

#endif  // MICRO_MATMUL_MATMUL_CUDA_H_
