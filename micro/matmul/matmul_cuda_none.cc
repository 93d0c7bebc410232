// CudaMatmul for builds without the CUDA toolkit: Create says why there is none, so every case
// reports why it cannot run.
#include "micro/matmul/matmul_cuda.h"

namespace micro {

std::unique_ptr<CudaMatmul> CudaMatmul::Create(CudaGemmType, int64_t, int64_t, int64_t, std::string* error) {
  *error = "built without the CUDA toolkit: no CUDA matmul";
  return nullptr;
}

}  // namespace micro
