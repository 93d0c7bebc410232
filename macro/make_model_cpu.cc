// MakeModel for builds without the CUDA toolkit: the CPU model only.
#include "absl/strings/str_cat.h"
#include "macro/make_model.h"
#include "model/cpu_model.h"
#include "model/threads.h"
#include "sysinfo/cpu_info.h"

namespace macro {

absl::StatusOr<std::unique_ptr<model::GptModel>> MakeModel(const StepOptions& o,
                                                           std::string* device_name) {
  if (o.device != "cpu") {
    return absl::UnavailableError(absl::StrCat(
        "--device=", o.device, ": this binary was built without the CUDA toolkit"));
  }
  if (o.threads > 0) model::SetNumThreads(o.threads);
  *device_name = sysinfo::ReadCpuInfo().model;
  return model::MakeCpuModel(o.config, o.batch, o.seq, o.seed);
}

}  // namespace macro
