// What the CPU decoder's tests share: their parameters, their tokens and their error measure.
#ifndef MODEL_DECODER_TEST_UTIL_H_
#define MODEL_DECODER_TEST_UTIL_H_

#include <cstdint>
#include <vector>

#include "model/data/rng.h"
#include "model/gpt_config.h"

namespace model {

// GPT-2's init from `seed`, with a rotary config's query and key weights scaled up 20x so that
// the attention is far from uniform and a key rotated at the wrong position moves the logits by
// far more than the tests' tolerance (at init q.k / sqrt(hd) is ~1e-2 and the softmax nearly flat).
std::vector<float> DecoderTestParams(const GptConfig& config, uint64_t seed);

// n tokens in [0, vocab), drawn from rng (a stream of requests) or from a fresh Rng(seed).
std::vector<int32_t> RandomTokens(int n, int vocab, Rng* rng);
std::vector<int32_t> RandomTokens(int n, int vocab, uint64_t seed);

// max |got - want| / max |want| over the real vocabulary of B rows of logits (row stride
// config.padded_vocab).
double MaxRelErr(const float* got, const float* want, int B, const GptConfig& config);

}  // namespace model

#endif  // MODEL_DECODER_TEST_UTIL_H_
