// The device the calling thread uses (a DDP rank selects its own first), checked usable before a
// model or decoder is built on it. Only that device is touched; the full probe, which visits
// every device, runs only to explain why there is none.
#ifndef MODEL_CUDA_CURRENT_DEVICE_H_
#define MODEL_CUDA_CURRENT_DEVICE_H_

#include <string>

#include "absl/status/statusor.h"

namespace model {
namespace cuda {

// The current device's number, or Unavailable("no CUDA device: <why>") when it cannot be read or
// its memory cannot be queried (the reason from sysinfo::ProbeCuda where it finds none).
absl::StatusOr<int> UsableCurrentDevice();

// "GPU <n> (<name>)", for messages.
std::string DeviceLabel(int device);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_CURRENT_DEVICE_H_
