// CudaElementwise for builds without the CUDA toolkit: every case reports why it cannot run.
#include "micro/elementwise/elementwise_cuda.h"

namespace micro {

struct CudaElementwise::Impl {};

namespace {
constexpr const char* kNoCuda = "built without the CUDA toolkit: no CUDA elementwise kernels";
}

// Create never makes one, so the constructor is not defined; the destructor is, for std::unique_ptr.
CudaElementwise::~CudaElementwise() = default;

std::unique_ptr<CudaElementwise> CudaElementwise::Create(const ElementwiseProblem&, std::string* error) {
  *error = kNoCuda;
  return nullptr;
}

std::string CudaElementwise::RunOnce() { return kNoCuda; }
std::string CudaElementwise::Download(const ElementwiseTensors&) { return kNoCuda; }
std::string CudaElementwise::TimeOnce(double*) { return kNoCuda; }

}  // namespace micro
