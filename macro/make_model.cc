// MakeModel: the CPU model, or the CUDA model on the run's device (whose stub, in a build without
// the toolkit, returns Unavailable saying so).
#include "macro/make_model.h"

#include "absl/strings/str_cat.h"
#include "model/cpu_gemm_backend.h"
#include "model/cpu_model.h"
#include "model/cuda/cuda_model.h"
#include "model/threads.h"
#include "sysinfo/cpu_info.h"

namespace macro {

absl::StatusOr<sysinfo::CudaDevice> ChooseCudaDevice(const sysinfo::CudaInventory& inventory,
                                                     int cuda_device) {
  if (!inventory.available) {
    return absl::UnavailableError(absl::StrCat("--device=cuda: no CUDA device: ", inventory.reason));
  }
  const sysinfo::CudaDevice* d = sysinfo::FindCudaDevice(inventory, cuda_device);
  if (d == nullptr) {
    std::string there;
    for (const sysinfo::CudaDevice& x : inventory.devices) {
      absl::StrAppend(&there, there.empty() ? "" : ", ", x.index, " (", x.name, ")");
    }
    return absl::InvalidArgumentError(
        absl::StrCat("CUDA device ", cuda_device, " does not exist; this process sees ", there));
  }
  return *d;
}

absl::StatusOr<std::unique_ptr<model::GptModel>> MakeModel(const StepOptions& o, int cuda_device,
                                                           std::string* device_name) {
  if (o.threads > 0) model::SetNumThreads(o.threads);
  if (o.device == "cpu") {
    model::SetCpuGemmBackend(o.cpu_gemm);  // --cpu_gemm: every fp32 GEMM of the CPU model
    *device_name = sysinfo::ReadCpuInfo().model;
    return model::MakeCpuModel(o.config, o.batch, o.seq, o.seed, o.dtype == accounting::Dtype::kBf16,
                              o.recompute);
  }
  // The probe creates no context and leaves the current device alone; then the run's device is
  // made current, and the model (which uses the current device) is allocated there.
  auto dev = ChooseCudaDevice(sysinfo::ProbeCuda(), cuda_device);
  if (!dev.ok()) return dev.status();
  if (std::string err = sysinfo::SelectCudaDevice(dev->index); !err.empty()) {
    return absl::UnavailableError(absl::StrCat("--device=cuda: ", err));
  }
  *device_name = dev->name;
  model::CudaModelOptions cuda_options;
  cuda_options.attention = o.attention_impl;
  cuda_options.cuda_graph = o.cuda_graph;
  cuda_options.recompute = o.recompute;
  return model::MakeCudaModel(o.config, o.batch, o.seq, o.seed, o.dtype, cuda_options);
}

}  // namespace macro
