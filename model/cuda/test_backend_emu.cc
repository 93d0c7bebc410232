// Test backend: the kernel emulator and the reference GEMM runner.
#include "model/cuda/test_backend.h"

namespace model {
namespace cuda {
namespace test {

const char* BackendName() { return "emu"; }
std::string UnavailableReason() { return ""; }
bool IsEmulated() { return true; }
std::unique_ptr<GemmRunner> MakeGemmRunner() { return MakeReferenceGemmRunner(); }

}  // namespace test
}  // namespace cuda
}  // namespace model
