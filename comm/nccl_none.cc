// nccl.h for builds without the CUDA toolkit: every call says NCCL is not built in.
#include "comm/nccl.h"

namespace comm {
namespace nccl {
namespace {
const char kNone[] = "NCCL: this binary was built without the CUDA toolkit (no NCCL)";
}  // namespace

bool Available() { return false; }
std::string DeviceCount(int* n) {
  *n = 0;
  return kNone;
}
std::string GetUniqueId(std::string*) { return kNone; }
std::string CommInit(const std::string&, int, int, int, void**) { return kNone; }
std::string AllReduceSumScale(void*, float*, int64_t, float) { return kNone; }
std::string Synchronize() { return kNone; }
std::string DeviceAlloc(int64_t, float, float**) { return kNone; }
std::string DeviceFree(float*) { return kNone; }
std::string AsyncError(void*) { return kNone; }
void CommDestroy(void*) {}

}  // namespace nccl
}  // namespace comm
