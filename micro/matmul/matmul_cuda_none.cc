// CudaMatmul for builds without the CUDA toolkit: every case reports why it cannot run.
#include "micro/matmul/matmul_cuda.h"

namespace micro {

struct CudaMatmul::Impl {};

namespace {
constexpr const char* kNoCuda = "built without the CUDA toolkit: no CUDA matmul";
}

// Create never makes one, so the constructor is not defined; the destructor is, for std::unique_ptr.
CudaMatmul::~CudaMatmul() = default;

std::unique_ptr<CudaMatmul> CudaMatmul::Create(CudaGemmType, int64_t, int64_t, int64_t, std::string* error) {
  *error = kNoCuda;
  return nullptr;
}

std::string CudaMatmul::RunAndGather(const std::vector<std::pair<int64_t, int64_t>>&, std::vector<float>*,
                                     std::vector<float>*, std::vector<float>*) {
  return kNoCuda;
}

std::string CudaMatmul::TimeOnce(double*) { return kNoCuda; }

}  // namespace micro
