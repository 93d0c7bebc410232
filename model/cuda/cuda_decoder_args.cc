// CheckCudaDecoderArgs: what MakeCudaDecoder checks with or without the CUDA toolkit.
#include "absl/strings/str_cat.h"
#include "model/cuda/cuda_decoder.h"

namespace model {

absl::Status CheckCudaDecoderArgs(const GptConfig& config, int B, int max_positions,
                                  accounting::Dtype dtype) {
  if (dtype != accounting::Dtype::kFp32 && dtype != accounting::Dtype::kBf16) {
    return absl::InvalidArgumentError(
        absl::StrCat("dtype ", accounting::DtypeName(dtype), ": the CUDA decoder runs fp32 or bf16"));
  }
  if (auto st = ValidateRunShape(config, B, max_positions); !st.ok()) return st;
  return absl::OkStatus();
}

}  // namespace model
