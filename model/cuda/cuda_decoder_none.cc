// MakeCudaDecoderOnDevice where the binary links no CUDA model (cuda_absent.h says why):
// Unavailable. (MakeCudaDecoder still checks the arguments first: cuda_decoder_args.cc.)
#include "model/cuda/cuda_absent.h"
#include "model/cuda/cuda_decoder.h"

namespace model {

absl::StatusOr<std::unique_ptr<GptDecoder>> MakeCudaDecoderOnDevice(const GptConfig&, absl::Span<const float>,
                                                                    int, int, int, accounting::Dtype) {
  return absl::UnavailableError(CudaAbsentReason());
}

}  // namespace model
