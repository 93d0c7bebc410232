// MakeCudaDecoder where the build has no CUDA toolkit: the checks that need no device, then
// Unavailable.
#include "model/cuda/cuda_decoder.h"

namespace model {

absl::StatusOr<std::unique_ptr<GptDecoder>> MakeCudaDecoder(const GptConfig& config,
                                                            absl::Span<const float> params, int B,
                                                            int max_prompt, int max_positions,
                                                            accounting::Dtype dtype) {
  if (auto st = CheckCudaDecoderArgs(config, B, max_positions, dtype); !st.ok()) return st;
  return absl::UnavailableError(
      "no CUDA device: built without the CUDA toolkit (none found at CUDA_PATH or /usr/local/cuda)");
}

}  // namespace model
