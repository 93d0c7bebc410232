// The cuBLAS GEMM a CUDA case times (//micro:matmul's sweep, //micro:ceilings' large GEMM):
// created, run once, and a sample of its output checked against a double dot product before
// any time counts.
#ifndef MICRO_MATMUL_CUDA_GEMM_CHECKED_H_
#define MICRO_MATMUL_CUDA_GEMM_CHECKED_H_

#include <cstdint>
#include <memory>
#include <string>

#include "accounting/dtype.h"
#include "micro/matmul/matmul_cuda.h"

namespace micro {

// fp32, tf32, bf16, fp16; any other dtype: fp32.
CudaGemmType CudaGemmTypeOf(accounting::Dtype dtype);

// CudaMatmul::Create, RunAndGather of `samples` entries and CheckMatmulSamples; nullptr with
// *error set (the failed call, or the first entry out of tolerance) on failure.
std::unique_ptr<CudaMatmul> CheckedCudaMatmul(accounting::Dtype dtype, int64_t m, int64_t k, int64_t n,
                                              int samples, std::string* error);

}  // namespace micro

#endif  // MICRO_MATMUL_CUDA_GEMM_CHECKED_H_
