// MakeCudaDecoderOnDevice with the CUDA toolkit: the current device, then the KV decoder on a
// cuBLASLt runner. (MakeCudaDecoder checks the arguments first: cuda_decoder_args.cc.)
#include "model/cuda/cuda_decoder.h"

#include "model/cuda/cuda_precision.h"
#include "model/cuda/current_device.h"
#include "model/cuda/gemm_cublaslt.h"
#include "model/cuda/kv_decoder_cuda.h"

namespace model {

absl::StatusOr<std::unique_ptr<GptDecoder>> MakeCudaDecoderOnDevice(const GptConfig& config,
                                                                    absl::Span<const float> params, int B,
                                                                    int max_prompt, int max_positions,
                                                                    accounting::Dtype dtype) {
  if (absl::StatusOr<int> device = cuda::UsableCurrentDevice(); !device.ok()) return device.status();
  std::string error;
  std::unique_ptr<cuda::GemmRunner> gemm = cuda::MakeCublasLtRunner(cuda::kCublasLtWorkspaceBytes, &error);
  if (gemm == nullptr) return absl::InternalError(error);
  return cuda::CreateKvDecoder(
      config, params, B, max_prompt, max_positions,
      dtype == accounting::Dtype::kBf16 ? cuda::CudaPrecision::kBf16 : cuda::CudaPrecision::kFp32,
      std::move(gemm));
}

}  // namespace model
