// CudaElementwise for builds without the CUDA toolkit: Create says why there is none, so every
// case reports why it cannot run.
#include "micro/elementwise/elementwise_cuda.h"

namespace micro {

std::unique_ptr<CudaElementwise> CudaElementwise::Create(const ElementwiseProblem&, std::string* error) {
  *error = "built without the CUDA toolkit: no CUDA elementwise kernels";
  return nullptr;
}

}  // namespace micro
