// MakeCudaModelOnDevice with the CUDA toolkit: the CUDA probe, then a CudaGpt on a cuBLASLt
// runner. (MakeCudaModel checks the arguments first, and DescribeCudaMemory needs no device: both
// are in cuda_model_common.cc.)
#include "model/cuda/cuda_model.h"

#include "model/cuda/attention_cudnn.h"
#include "model/cuda/attention_selfcheck.h"
#include "model/cuda/cuda_gpt.h"
#include "model/cuda/cuda_precision.h"
#include "model/cuda/current_device.h"
#include "model/cuda/device_api.h"
#include "model/cuda/gemm_cublaslt.h"

namespace model {

absl::StatusOr<std::unique_ptr<GptModel>> MakeCudaModelOnDevice(const GptConfig& config, int B, int T,
                                                                uint64_t seed, cuda::CudaPrecision precision,
                                                                const CudaModelOptions& model_options) {
  absl::StatusOr<int> device = cuda::UsableCurrentDevice();  // the one a DDP rank selected
  if (!device.ok()) return device.status();
  const std::string name = cuda::DeviceLabel(*device);
  std::string error;
  std::unique_ptr<cuda::GemmRunner> gemm = cuda::MakeCublasLtRunner(cuda::kCublasLtWorkspaceBytes, &error);
  if (gemm == nullptr) return absl::InternalError(error);
  cuda::CudaGptOptions options;
  options.precision = precision;
  options.device_name = name;
  // cuBLASLt's GeLU epilogue may use the hardware tanh approximation (~1e-3 relative): well
  // below bf16's resolution, but not what fp32 mode promises (the CPU model to ~1e-5).
  options.fuse_gelu = precision == cuda::CudaPrecision::kBf16;
  options.cuda_graph = model_options.cuda_graph;
  options.recompute = model_options.recompute;
  // cuDNN's attention or the kernels (attention_choice.h); auto checks cuDNN against the kernels
  // first, on this runner.
  const cuda::AttentionShape shape{B, T, config.heads, config.head_size(), config.kv_head_count()};
  absl::StatusOr<cuda::AttentionDecision> choice = cuda::DecideAttention(
      model_options.attention, precision, cuda::ProbeCudnn(),
      [&] { return cuda::CudnnSelfCheck(shape, gemm.get()); },
      cuda::AttentionUse{model_options.cuda_graph, T});
  if (!choice.ok()) return choice.status();
  options.cudnn_attention = choice->cudnn;
  options.attention_choice = choice->line;
  return cuda::CreateCudaGpt(config, B, T, seed, options, std::move(gemm));
}

std::string DescribeCudaModel(const GptModel& model) { return cuda::DescribeCudaGpt(model); }

std::string CudaAttentionChoice(const GptModel& model) { return cuda::CudaGptAttentionChoice(model); }

const cuda::CudaMemoryPlan* CudaModelMemoryPlan(const GptModel& model) { return cuda::CudaGptMemoryPlan(model); }

int64_t CudaDeviceMemoryInUse() {
  int64_t free_bytes = 0, total_bytes = 0;
  if (!cuda::DeviceMemoryInfo(&free_bytes, &total_bytes).empty()) return -1;
  return total_bytes - free_bytes;
}

}  // namespace model
