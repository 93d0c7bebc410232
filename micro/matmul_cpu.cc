// MatmulCpu: cblas_sgemm from OpenBLAS.
#include "micro/matmul_cpu.h"

#include <cblas.h>

namespace micro {

void MatmulCpu(float* c, const float* a, const float* b, int64_t m, int64_t k, int64_t n) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(m),
              static_cast<blasint>(n), static_cast<blasint>(k), 1.0f, a, static_cast<blasint>(k),
              b, static_cast<blasint>(n), 0.0f, c, static_cast<blasint>(n));
}

std::string OpenBlasDescription() {
  return std::string(openblas_get_config()) + "; core " + openblas_get_corename() + "; " +
         std::to_string(openblas_get_num_threads()) + " threads";
}

}  // namespace micro
