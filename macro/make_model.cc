// MakeModel: the CPU model, or the CUDA model (whose stub, in a build without the toolkit,
// returns Unavailable saying so).
#include "absl/strings/str_cat.h"
#include "macro/make_model.h"
#include "model/cpu_gemm_backend.h"
#include "model/cpu_model.h"
#include "model/cuda/cuda_model.h"
#include "model/threads.h"
#include "sysinfo/cpu_info.h"
#include "sysinfo/cuda_info.h"

namespace macro {

absl::StatusOr<std::unique_ptr<model::GptModel>> MakeModel(const StepOptions& o,
                                                           std::string* device_name) {
  if (o.threads > 0) model::SetNumThreads(o.threads);
  if (o.device == "cpu") {
    model::SetCpuGemmBackend(o.cpu_gemm);  // --cpu_gemm: every fp32 GEMM of the CPU model
    *device_name = sysinfo::ReadCpuInfo().model;
    return model::MakeCpuModel(o.config, o.batch, o.seq, o.seed);
  }
  sysinfo::CudaInventory inv = sysinfo::ProbeCuda();
  if (!inv.available) {
    return absl::UnavailableError(absl::StrCat("--device=cuda: no CUDA device: ", inv.reason));
  }
  *device_name = inv.devices[0].name;
  return model::MakeCudaModel(o.config, o.batch, o.seq, o.seed, o.dtype);
}

}  // namespace macro
