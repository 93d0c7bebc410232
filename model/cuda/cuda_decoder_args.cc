// MakeCudaDecoder: the checks that need no device, in every build, then the build's device half
// (cuda_decoder.cc with the CUDA toolkit, cuda_decoder_none.cc without).
#include "absl/strings/str_cat.h"
#include "model/cuda/cuda_decoder.h"

namespace model {
namespace {

// The dtype, then the shape: OK, or InvalidArgument naming the value.
absl::Status CheckCudaDecoderArgs(const GptConfig& config, int B, int max_positions,
                                  accounting::Dtype dtype) {
  if (dtype != accounting::Dtype::kFp32 && dtype != accounting::Dtype::kBf16) {
    return absl::InvalidArgumentError(
        absl::StrCat("dtype ", accounting::DtypeName(dtype), ": the CUDA decoder runs fp32 or bf16"));
  }
  return ValidateRunShape(config, B, max_positions);
}

}  // namespace

absl::StatusOr<std::unique_ptr<GptDecoder>> MakeCudaDecoder(const GptConfig& config,
                                                            absl::Span<const float> params, int B,
                                                            int max_prompt, int max_positions,
                                                            accounting::Dtype dtype) {
  if (auto st = CheckCudaDecoderArgs(config, B, max_positions, dtype); !st.ok()) return st;
  return MakeCudaDecoderOnDevice(config, params, B, max_prompt, max_positions, dtype);
}

}  // namespace model
