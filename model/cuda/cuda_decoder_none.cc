// MakeCudaDecoderOnDevice where the build has no CUDA toolkit: Unavailable. (MakeCudaDecoder
// still checks the arguments first: cuda_decoder_args.cc.)
#include "model/cuda/cuda_decoder.h"

namespace model {

absl::StatusOr<std::unique_ptr<GptDecoder>> MakeCudaDecoderOnDevice(const GptConfig&, absl::Span<const float>,
                                                                    int, int, int, accounting::Dtype) {
  return absl::UnavailableError(
      "no CUDA device: built without the CUDA toolkit (none found at CUDA_PATH or /usr/local/cuda)");
}

}  // namespace model
