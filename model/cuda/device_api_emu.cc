// device_api.h for the kernel emulator: "device" memory is host memory, every call synchronous.
// The emulated device reports 4 GiB total (free = total minus what is allocated now), so the
// memory-plan check runs as it would on a GPU.
// Graphs: cuda_emu/capture.h. While capturing, memsets and device copies are recorded (as the
// emulated launches and the reference GEMM record themselves); the calls a CUDA graph cannot
// hold abort, so a host test finds them where a GPU would fail the capture.
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cuda_emu/capture.h"
#include "model/cuda/device_api.h"

namespace model {
namespace cuda {
namespace {

constexpr int64_t kEmuTotalBytes = int64_t{4} << 30;
std::map<void*, int64_t>& Allocations() {
  static auto* m = new std::map<void*, int64_t>();
  return *m;
}
int64_t Allocated() {
  int64_t sum = 0;
  for (const auto& [p, bytes] : Allocations()) sum += bytes;
  return sum;
}

}  // namespace

std::string DeviceAlloc(void** ptr, int64_t bytes) {
  emu::ForbidWhileCapturing("DeviceAlloc (cudaMalloc)");
  // Exactly `bytes` (at least 1), 256-byte aligned: under AddressSanitizer an emulated kernel
  // reading or writing past a buffer is reported.
  const size_t size = static_cast<size_t>(bytes > 0 ? bytes : 1);
  void* p = nullptr;
  if (posix_memalign(&p, 256, size) != 0) {
    *ptr = nullptr;
    return "emulated device: out of host memory for " + std::to_string(bytes) + " bytes";
  }
  // Fill with a NaN pattern, as fresh device memory holds garbage: a kernel that reads what
  // nobody wrote shows up as NaN in the results.
  std::memset(p, 0xFF, size);
  Allocations()[p] = bytes;
  *ptr = p;
  return "";
}

void DeviceFree(void* ptr) {
  Allocations().erase(ptr);
  std::free(ptr);
}

std::string DeviceMemoryInfo(int64_t* free_bytes, int64_t* total_bytes) {
  *total_bytes = kEmuTotalBytes;
  *free_bytes = kEmuTotalBytes - Allocated();
  return "";
}

std::string DeviceGet(int* device) {
  *device = 0;
  return "";
}
std::string DeviceSet(int device) { return device == 0 ? "" : "the emulated machine has one device, 0"; }

std::string DeviceName(int device) { return device == 0 ? "emulated device" : ""; }

void CopyToDevice(void* dst, const void* src, int64_t bytes) {
  emu::ForbidWhileCapturing("CopyToDevice (a synchronous copy from the host)");
  if (bytes > 0) std::memcpy(dst, src, static_cast<size_t>(bytes));
}
void CopyToHost(void* dst, const void* src, int64_t bytes) {
  emu::ForbidWhileCapturing("CopyToHost (a synchronous copy to the host)");
  if (bytes > 0) std::memcpy(dst, src, static_cast<size_t>(bytes));
}
void CopyDeviceToDevice(void* dst, const void* src, int64_t bytes) {
  if (bytes <= 0) return;
  if (emu::Capturing()) {
    emu::Record([dst, src, bytes] { std::memmove(dst, src, static_cast<size_t>(bytes)); });
    return;
  }
  std::memmove(dst, src, static_cast<size_t>(bytes));
}
void MemsetAsync(void* ptr, int value, int64_t bytes) {
  if (bytes <= 0) return;
  if (emu::Capturing()) {
    emu::Record([ptr, value, bytes] { std::memset(ptr, value, static_cast<size_t>(bytes)); });
    return;
  }
  std::memset(ptr, value, static_cast<size_t>(bytes));
}
void DeviceSynchronize() { emu::ForbidWhileCapturing("DeviceSynchronize"); }

// --- graphs: the recorded closures, replayed in order ---
class DeviceGraph {
 public:
  explicit DeviceGraph(std::vector<emu::CapturedOp> ops) : ops_(std::move(ops)) {}
  void Run() const {
    for (const emu::CapturedOp& op : ops_) op();
  }

 private:
  std::vector<emu::CapturedOp> ops_;
};

void DeviceGraphDeleter::operator()(DeviceGraph* graph) const { delete graph; }

std::string BeginGraphCapture() {
  if (emu::Capturing()) return "cudaStreamBeginCapture: the stream is already capturing";
  emu::BeginCapture();
  return "";
}

DeviceGraphPtr EndGraphCapture(std::string* error) {
  if (!emu::Capturing()) {
    *error = "cudaStreamEndCapture: the stream is not capturing";
    return nullptr;
  }
  return DeviceGraphPtr(new DeviceGraph(emu::EndCapture()));
}

bool GraphCapturing() { return emu::Capturing(); }

void LaunchGraph(DeviceGraph& graph) {
  emu::ForbidWhileCapturing("LaunchGraph inside a capture");
  graph.Run();
}

}  // namespace cuda
}  // namespace model
