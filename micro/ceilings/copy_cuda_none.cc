// CudaCopy for builds without the CUDA toolkit: Create says why there is none.
#include "micro/ceilings/copy_cuda.h"

namespace micro {

std::unique_ptr<CudaCopy> CudaCopy::Create(int64_t, std::string* error) {
  *error = "built without the CUDA toolkit: no device copy";
  return nullptr;
}

}  // namespace micro
