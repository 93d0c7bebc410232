// UsableCurrentDevice: the runtime's current device and its memory query, else the probe's reason.
#include "model/cuda/current_device.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "model/cuda/device_api.h"
#include "sysinfo/cuda_info.h"

namespace model {
namespace cuda {

absl::StatusOr<int> UsableCurrentDevice() {
  int device = 0;
  int64_t free_bytes = 0, total_bytes = 0;
  std::string error = DeviceGet(&device);
  if (error.empty()) error = DeviceMemoryInfo(&free_bytes, &total_bytes);
  if (!error.empty()) {
    const sysinfo::CudaInventory inv = sysinfo::ProbeCuda();
    return absl::UnavailableError(absl::StrCat("no CUDA device: ", inv.available ? error : inv.reason));
  }
  return device;
}

std::string DeviceLabel(int device) { return absl::StrCat("GPU ", device, " (", DeviceName(device), ")"); }

}  // namespace cuda
}  // namespace model
