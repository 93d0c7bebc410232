// device_api.h for the kernel emulator: "device" memory is host memory, every call synchronous.
// The emulated device reports 4 GiB total (free = total minus what is allocated), so the
// memory-plan check runs as it would on a GPU.
#include <cstdlib>
#include <cstring>
#include <string>

#include "model/cuda/device_api.h"

namespace model {
namespace cuda {
namespace {

constexpr int64_t kEmuTotalBytes = int64_t{4} << 30;
int64_t g_allocated = 0;

}  // namespace

std::string DeviceAlloc(void** ptr, int64_t bytes) {
  const size_t rounded = static_cast<size_t>((bytes + 255) / 256 * 256 + 256);
  void* p = std::aligned_alloc(256, rounded);
  if (p == nullptr) {
    *ptr = nullptr;
    return "emulated device: out of host memory for " + std::to_string(bytes) + " bytes";
  }
  // Fill with a NaN pattern, as fresh device memory holds garbage: a kernel that reads what
  // nobody wrote shows up as NaN in the results.
  std::memset(p, 0xFF, rounded);
  g_allocated += bytes;
  *ptr = p;
  return "";
}

void DeviceFree(void* ptr) { std::free(ptr); }

std::string DeviceMemoryInfo(int64_t* free_bytes, int64_t* total_bytes) {
  *total_bytes = kEmuTotalBytes;
  *free_bytes = kEmuTotalBytes - g_allocated;
  return "";
}

void CopyToDevice(void* dst, const void* src, int64_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, static_cast<size_t>(bytes));
}
void CopyToHost(void* dst, const void* src, int64_t bytes) {
  if (bytes > 0) std::memcpy(dst, src, static_cast<size_t>(bytes));
}
void CopyDeviceToDevice(void* dst, const void* src, int64_t bytes) {
  if (bytes > 0) std::memmove(dst, src, static_cast<size_t>(bytes));
}
void MemsetAsync(void* ptr, int value, int64_t bytes) {
  if (bytes > 0) std::memset(ptr, value, static_cast<size_t>(bytes));
}
void DeviceSynchronize() {}

}  // namespace cuda
}  // namespace model
