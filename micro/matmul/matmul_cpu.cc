// MatmulCpu: oneDNN's matmul primitive (model/onednn_gemm.h) or OpenBLAS's cblas_sgemm.
#include "micro/matmul/matmul_cpu.h"

#include <cblas.h>

#include "absl/strings/str_cat.h"
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
  if (library == model::CpuGemmBackend::kOneDnn) {
    model::OneDnnSgemm(Shape(m, k, n), a, b, nullptr, c);
    return;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(m), static_cast<blasint>(n),
              static_cast<blasint>(k), 1.0f, a, static_cast<blasint>(k), b, static_cast<blasint>(n), 0.0f, c,
              static_cast<blasint>(n));
}

std::string MatmulCpuKernel(model::CpuGemmBackend library, int64_t m, int64_t k, int64_t n) {
  const model::GemmInfo info = model::CpuGemmInfo(library);
  if (library == model::CpuGemmBackend::kOneDnn) {
    const std::string isa = info.kernel.substr(0, info.kernel.find(' '));
    return absl::StrCat(info.library, " ", info.version, " ", model::OneDnnImplName(Shape(m, k, n)),
                        " (effective ISA ", isa, info.forced ? "; " + info.kernel_choice : "", ")");
  }
  return absl::StrCat(info.library, " ", info.version, " core ", info.kernel, " (", info.kernel_choice, ")");
}

}  // namespace micro
