// For the decoder tests (CPU and CUDA): what a decoder's logits must equal, from the training
// model's full forward over the whole prefix.
#ifndef MODEL_FULL_FORWARD_LOGITS_H_
#define MODEL_FULL_FORWARD_LOGITS_H_

#include <cstdint>
#include <vector>

#include "model/gpt_config.h"

namespace model {

// The CPU training model's fp32 logits (B, Vp) at the last of T positions, for the streams
// seq (B, T) and parameters `params` (ParamLayout(config)). A failure fails the test.
std::vector<float> FullForwardLastLogits(const GptConfig& config, const std::vector<float>& params,
                                         const std::vector<int32_t>& seq, int B, int T);

}  // namespace model

#endif  // MODEL_FULL_FORWARD_LOGITS_H_
