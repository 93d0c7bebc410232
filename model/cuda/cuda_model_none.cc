// The device half of cuda_model.h where the binary links no CUDA model (cuda_absent.h says why):
// MakeCudaModelOnDevice returns Unavailable (MakeCudaModel, in cuda_model_common.cc, still checks
// the arguments first), and there is no CUDA model to describe.
#include "model/cuda/cuda_absent.h"
#include "model/cuda/cuda_model.h"

namespace model {

absl::StatusOr<std::unique_ptr<GptModel>> MakeCudaModelOnDevice(const GptConfig&, int, int, uint64_t,
                                                                cuda::CudaPrecision,
                                                                const CudaModelOptions&) {
  return absl::UnavailableError(CudaAbsentReason());
}

std::string DescribeCudaModel(const GptModel&) { return ""; }

std::string CudaAttentionChoice(const GptModel&) { return ""; }

const cuda::CudaMemoryPlan* CudaModelMemoryPlan(const GptModel&) { return nullptr; }

int64_t CudaDeviceMemoryInUse() { return -1; }

}  // namespace model
