// The device half of cuda_model.h where the build has no CUDA toolkit: MakeCudaModelOnDevice
// returns Unavailable (MakeCudaModel, in cuda_model_common.cc, still checks the arguments first),
// and there is no CUDA model to describe.
#include "model/cuda/cuda_model.h"

namespace model {

absl::StatusOr<std::unique_ptr<GptModel>> MakeCudaModelOnDevice(const GptConfig&, int, int, uint64_t,
                                                                cuda::CudaPrecision,
                                                                const CudaModelOptions&) {
  return absl::UnavailableError(
      "no CUDA device: built without the CUDA toolkit (none found at CUDA_PATH or /usr/local/cuda)");
}

std::string DescribeCudaModel(const GptModel&) { return ""; }

std::string CudaAttentionChoice(const GptModel&) { return ""; }

}  // namespace model
