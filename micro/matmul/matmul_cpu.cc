// MatmulCpu: oneDNN's matmul primitive (model/onednn_gemm.h), oneDNN's dnnl_sgemm or OpenBLAS's
// cblas_sgemm, through the model's own call (model/gemm_cpu.h).
#include "micro/matmul/matmul_cpu.h"

#include "absl/strings/str_cat.h"
#include "model/gemm_cpu.h"
#include "model/gemm_info.h"
#include "model/onednn_gemm.h"

namespace micro {
namespace {

// C (m, n) = A (m, k) @ B (k, n), row-major, no transposes.
model::OneDnnGemmShape Shape(int64_t m, int64_t k, int64_t n) {
  return {/*trans_a=*/false, /*trans_b=*/false, /*M=*/m,   /*N=*/n,
          /*K=*/k,           /*lda=*/k,         /*ldb=*/n, /*ldc=*/n};
}

}  // namespace

void MatmulCpu(model::CpuGemmBackend library, float* c, const float* a, const float* b, int64_t m, int64_t k,
               int64_t n) {
  model::cpu_gemm_on(library, /*trans_a=*/false, /*trans_b=*/false, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
}

std::string MatmulCpuKernel(model::CpuGemmBackend library, int64_t m, int64_t k, int64_t n) {
  const model::GemmInfo info = model::CpuGemmInfo(library);
  if (library == model::CpuGemmBackend::kOneDnn) {
    const std::string isa = info.kernel.substr(0, info.kernel.find(' '));
    return absl::StrCat(info.library, " ", info.version, " ", model::OneDnnImplName(Shape(m, k, n)),
                        " (effective ISA ", isa, info.forced ? "; " + info.kernel_choice : "", ")");
  }
  if (library == model::CpuGemmBackend::kOneDnnSgemm) {
    const std::string isa = info.kernel.substr(0, info.kernel.find(' '));
    return absl::StrCat(info.library, " ", info.version, " dnnl_sgemm, column-major C^T = B^T*A^T (effective ISA ",
                        isa, info.forced ? "; " + info.kernel_choice : "", ")");
  }
  return absl::StrCat(info.library, " ", info.version, " core ", info.kernel, " (", info.kernel_choice, ")");
}

}  // namespace micro
