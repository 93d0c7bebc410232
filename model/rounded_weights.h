// A weight format's rounding, kept in fp32 storage: a copy of the parameters whose Linear weights
// (qkv, attention projection, fc, fc projection and the LM head) carry the rounding that format
// makes at load (weight_format.h), everything else unchanged. An fp32 decoder over the copy shows
// the accuracy cost of the format's values alone, without its kernels; it is what
// //macro:decode_accuracy runs as --weights=bf16_in_fp32 / int8_in_fp32, and what the tests
// compare the bf16 and int8 decoders with.
//   bf16: each weight rounded to nearest-even bf16 (model/bf16.h) and widened back;
//   int8: each (OC, C) weight quantised by quantize_int8.h (symmetric per output channel) and
//         dequantised as q * s in fp32: the int8 kernels' values.
// With a tied LM head the rounding reaches wte, which is also the token embedding: the real
// formats round the LM head's copy only, so this copy overstates their error by the embeddings'
// share (small next to the LM head's own).
#ifndef MODEL_ROUNDED_WEIGHTS_H_
#define MODEL_ROUNDED_WEIGHTS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "model/gpt_config.h"
#include "model/weight_format.h"

namespace model {

// The rows and columns of each Linear weight of `config` (every layer's stacked into one), with
// its offset in the parameter buffer.
struct LinearMatrix {
  const char* name;
  int64_t offset, rows, cols;
};
std::vector<LinearMatrix> LinearMatrices(const GptConfig& config);

// params: (num_params) with ParamLayout(config). kFp32: an exact copy. Error (InvalidArgument)
// when a Linear weight is NaN or infinite, naming the tensor, its row and the value.
absl::StatusOr<std::vector<float>> RoundLinearWeights(const GptConfig& config, const float* params,
                                                      WeightFormat format);

}  // namespace model

#endif  // MODEL_ROUNDED_WEIGHTS_H_
