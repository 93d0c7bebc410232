// MakeCudaDecoder where the build has no CUDA toolkit: the checks that need no device, then
// Unavailable.
#include "absl/strings/str_cat.h"
#include "model/cuda/cuda_decoder.h"

namespace model {

absl::StatusOr<std::unique_ptr<GptDecoder>> MakeCudaDecoder(const GptConfig& config,
                                                            absl::Span<const float> params, int B,
                                                            int max_prompt, int max_positions,
                                                            accounting::Dtype dtype) {
  if (dtype != accounting::Dtype::kFp32 && dtype != accounting::Dtype::kBf16) {
    return absl::InvalidArgumentError(
        absl::StrCat("dtype ", accounting::DtypeName(dtype), ": the CUDA decoder runs fp32 or bf16"));
  }
  if (auto st = ValidateRunShape(config, B, max_positions); !st.ok()) return st;
  return absl::UnavailableError(
      "no CUDA device: built without the CUDA toolkit (none found at CUDA_PATH or /usr/local/cuda)");
}

}  // namespace model
