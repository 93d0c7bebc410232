// MakeCudaModel where the build has no CUDA toolkit: the checks that need no device, then
// Unavailable. (DescribeCudaMemory, which needs no device, is in cuda_model_common.cc.)
#include "model/cuda/cuda_model.h"
#include "model/cuda/cuda_precision.h"

namespace model {
namespace {

constexpr char kNoToolkit[] =
    "no CUDA device: built without the CUDA toolkit (none found at CUDA_PATH or "
    "/usr/local/cuda)";

}  // namespace

absl::StatusOr<std::unique_ptr<GptModel>> MakeCudaModel(const GptConfig& config, int B, int T, uint64_t seed,
                                                        accounting::Dtype dtype, const CudaModelOptions&) {
  if (auto st = cuda::PrecisionOf(dtype).status(); !st.ok()) return st;
  if (auto st = ValidateRunShape(config, B, T); !st.ok()) return st;
  return absl::UnavailableError(kNoToolkit);
}

std::string DescribeCudaModel(const GptModel&) { return ""; }

std::string CudaAttentionChoice(const GptModel&) { return ""; }

}  // namespace model
