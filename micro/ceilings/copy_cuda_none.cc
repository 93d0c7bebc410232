// CudaCopy for builds without the CUDA toolkit.
#include "micro/ceilings/copy_cuda.h"

namespace micro {

struct CudaCopy::Impl {};

namespace {
constexpr const char* kNoCuda = "built without the CUDA toolkit: no device copy";
}

// Create never makes one, so the constructor is not defined; the destructor is, for std::unique_ptr.
CudaCopy::~CudaCopy() = default;

std::unique_ptr<CudaCopy> CudaCopy::Create(int64_t, std::string* error) {
  *error = kNoCuda;
  return nullptr;
}

std::string CudaCopy::TimeOnce(double*) { return kNoCuda; }
std::string CudaCopy::Verify() { return kNoCuda; }

}  // namespace micro
