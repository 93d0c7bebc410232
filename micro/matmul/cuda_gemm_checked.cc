// A cuBLAS GEMM checked before it is timed (cuda_gemm_checked.h).
#include "micro/matmul/cuda_gemm_checked.h"

#include <vector>

#include "absl/status/status.h"
#include "micro/matmul/matmul_check.h"

namespace micro {

CudaGemmType CudaGemmTypeOf(accounting::Dtype dtype) {
  switch (dtype) {
    case accounting::Dtype::kTf32: return CudaGemmType::kTf32;
    case accounting::Dtype::kBf16: return CudaGemmType::kBf16;
    case accounting::Dtype::kFp16: return CudaGemmType::kFp16;
    default: return CudaGemmType::kFp32;
  }
}

std::unique_ptr<CudaMatmul> CheckedCudaMatmul(accounting::Dtype dtype, int64_t m, int64_t k, int64_t n,
                                              int samples, std::string* error) {
  std::unique_ptr<CudaMatmul> mm = CudaMatmul::Create(CudaGemmTypeOf(dtype), m, k, n, error);
  if (!error->empty() || mm == nullptr) return nullptr;
  const auto entries = MatmulSampleEntries(m, n, samples);
  std::vector<float> a_rows, b_cols, cs;
  *error = mm->RunAndGather(entries, &a_rows, &b_cols, &cs);
  if (!error->empty()) return nullptr;
  absl::Status ok = CheckMatmulSamples(dtype, k, entries, a_rows.data(), b_cols.data(), cs.data());
  if (!ok.ok()) {
    *error = std::string(ok.message());
    return nullptr;
  }
  return mm;
}

}  // namespace micro
