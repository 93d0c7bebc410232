// The parts of cuda_model.h that need no device, in every build: MakeCudaModel's checks before
// the build's device half (cuda_model.cc with the CUDA toolkit, cuda_model_none.cc without), and
// the memory description.
#include "model/cuda/cuda_memory.h"
#include "model/cuda/cuda_model.h"
#include "model/cuda/cuda_precision.h"
#include "model/cuda/gemm.h"

namespace model {

absl::StatusOr<std::unique_ptr<GptModel>> MakeCudaModel(const GptConfig& config, int B, int T, uint64_t seed,
                                                        accounting::Dtype dtype,
                                                        const CudaModelOptions& options) {
  absl::StatusOr<cuda::CudaPrecision> precision = cuda::PrecisionOf(dtype);
  if (!precision.ok()) return precision.status();
  if (auto st = ValidateRunShape(config, B, T); !st.ok()) return st;
  return MakeCudaModelOnDevice(config, B, T, seed, *precision, options);
}

absl::StatusOr<std::string> DescribeCudaMemory(const GptConfig& config, int B, int T,
                                               accounting::Dtype dtype) {
  absl::StatusOr<cuda::CudaPrecision> precision = cuda::PrecisionOf(dtype);
  if (!precision.ok()) return precision.status();
  absl::StatusOr<cuda::CudaMemoryPlan> plan =
      cuda::PlanCudaMemory(config, B, T, cuda::ActivationStorage(*precision), cuda::kCublasLtWorkspaceBytes);
  if (!plan.ok()) return plan.status();
  return plan->Describe();
}

}  // namespace model
