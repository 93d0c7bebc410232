// The parts of cuda_model.h that need no device: the memory description.
#include "model/cuda/cuda_memory.h"
#include "model/cuda/cuda_model.h"
#include "model/cuda/cuda_precision.h"
#include "model/cuda/gemm.h"

namespace model {

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
