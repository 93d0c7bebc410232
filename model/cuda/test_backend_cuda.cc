// Test backend: the GPU, with cuBLASLt GEMMs.
#include <cstdio>
#include <cstdlib>

#include "model/cuda/gemm_cublaslt.h"
#include "model/cuda/test_backend.h"
#include "sysinfo/cuda_info.h"

namespace model {
namespace cuda {
namespace test {

const char* BackendName() { return "cuda"; }

std::string UnavailableReason() {
  static const std::string reason = [] {
    const sysinfo::CudaInventory inv = sysinfo::ProbeCuda();
    return inv.available ? std::string() : inv.reason;
  }();
  return reason;
}

bool IsEmulated() { return false; }

std::unique_ptr<GemmRunner> MakeGemmRunner() {
  std::string error;
  std::unique_ptr<GemmRunner> runner = MakeCublasLtRunner(kCublasLtWorkspaceBytes, &error);
  if (runner == nullptr) {
    std::fprintf(stderr, "MakeGemmRunner: %s\n", error.c_str());
    std::abort();
  }
  return runner;
}

}  // namespace test
}  // namespace cuda
}  // namespace model
