// The CPU matmuls the benchmark times, one per backend (model/cpu_gemm_backend.h): oneDNN's matmul
// primitive (cached per shape, as the model runs it), oneDNN's dnnl_sgemm and OpenBLAS's sgemm
// (OpenMP build); row-major, fp32. The cpu/auto family chooses one of them per shape first.
#ifndef MICRO_MATMUL_MATMUL_CPU_H_
#define MICRO_MATMUL_MATMUL_CPU_H_

#include <cstdint>
#include <string>

#include "model/cpu_gemm_backend.h"

namespace micro {

// c: (m, n) = a: (m, k) @ b: (k, n); row-major, fp32, C overwritten (beta = 0). `library` is a
// concrete backend (not auto).
void MatmulCpu(model::CpuGemmBackend library, float* c, const float* a, const float* b, int64_t m, int64_t k,
               int64_t n);

// The kernel that runs this shape, for the case's label:
//   "oneDNN 2.6.3 brg:avx512_core (effective ISA avx512_core_bf16)"
//   "oneDNN 2.6.3 dnnl_sgemm, column-major C^T = B^T*A^T (effective ISA avx512_core_bf16)"
//   "OpenBLAS 0.3.21 core Cooperlake (the library's CPU detection (OPENBLAS_CORETYPE unset))"
std::string MatmulCpuKernel(model::CpuGemmBackend library, int64_t m, int64_t k, int64_t n);

}  // namespace micro

#endif  // MICRO_MATMUL_MATMUL_CPU_H_
