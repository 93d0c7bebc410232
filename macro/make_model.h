// Builds the model for a run on the chosen device: the CPU reference or the CUDA model.
// The code after this call is the same for both (model::GptModel).
#ifndef MACRO_MAKE_MODEL_H_
#define MACRO_MAKE_MODEL_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "macro/step_options.h"
#include "model/gpt_model.h"
#include "sysinfo/cuda_info.h"

namespace macro {

// `cuda_device`: on CUDA, the device the run uses (gpt_step: 0; a ddp_step rank: its local rank,
// the GPU its NCCL communicator is bound to); it is made the calling thread's current device and
// the model is allocated there. Ignored on the CPU (the threads are o.threads; 0 leaves the
// OpenMP default). `device_name` receives that CUDA device's name (for its datasheet peak) or the
// CPU model.
absl::StatusOr<std::unique_ptr<model::GptModel>> MakeModel(const StepOptions& o, int cuda_device,
                                                           std::string* device_name);

// The device `cuda_device` of `inventory`, or an error: Unavailable without a device (with the
// probe's reason), InvalidArgument naming the devices there are when the index is not one.
absl::StatusOr<sysinfo::CudaDevice> ChooseCudaDevice(const sysinfo::CudaInventory& inventory,
                                                     int cuda_device);

}  // namespace macro

#endif  // MACRO_MAKE_MODEL_H_
