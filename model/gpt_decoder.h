// The device-agnostic interface of KV-cache autoregressive decoding, for every family of
// gpt_config.h: the CPU decoder (cpu_decoder.h) and the CUDA one (model/cuda/cuda_decoder.h)
// implement it, and //macro:gpt_decode drives either through it alone.
//
// B streams decode in lockstep. Prefill(tokens, P) runs a prompt of P tokens per stream at
// positions 0 .. P-1 (after Reset) and leaves the logits of each stream's next token; Step
// feeds one token per stream at position() and leaves the logits of the token after it.
#ifndef MODEL_GPT_DECODER_H_
#define MODEL_GPT_DECODER_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "model/gpt_config.h"
#include "model/op_timer.h"

namespace model {

class GptDecoder {
 public:
  virtual ~GptDecoder() = default;

  virtual std::string_view device() const = 0;  // "cpu" / "cuda"
  virtual const GptConfig& config() const = 0;
  virtual int B() const = 0;                // streams
  virtual int max_positions() const = 0;    // cache length per stream
  virtual int position() const = 0;         // tokens each stream has in the cache
  virtual int64_t cache_bytes() const = 0;  // the KV cache's allocation

  virtual void Reset() = 0;  // empties the cache (position 0)
  // tokens: (B, P), each in [0, vocab), 1 <= P <= the planned prompt length; after Reset.
  virtual absl::Status Prefill(absl::Span<const int32_t> tokens, int P) = 0;
  // tokens: (B), one per stream, at position() < max_positions().
  virtual absl::Status Step(absl::Span<const int32_t> tokens) = 0;
  // The arg max over the first vocab logits of each stream (ties: lowest id), on the host.
  // Waits for the device where there is one: a timer around Step + Greedy times the work.
  virtual absl::Status Greedy(std::vector<int32_t>* next) = 0;
  // (B, Vp) fp32 logits of the last Prefill or Step, on the host.
  virtual absl::Status CopyLogitsToHost(std::vector<float>* out) = 0;

  virtual void SetOpTimer(OpTimer* timer) = 0;
};

// The greedy choice per stream: logits (B, Vp) on the host, argmax over the first V entries of
// each row (the padding columns never win). Shared by the CPU and CUDA decoders.
inline void ArgmaxRows(const float* logits, int64_t B, int64_t V, int64_t Vp, std::vector<int32_t>* next) {
  next->resize(B);
  for (int64_t b = 0; b < B; ++b) {
    const float* row = logits + b * Vp;
    int64_t best = 0;
    for (int64_t v = 1; v < V; ++v) {
      if (row[v] > row[best]) best = v;
    }
    (*next)[b] = static_cast<int32_t>(best);
  }
}

// The shape checks every decoder's factory makes: a valid config, B >= 1 streams,
// 1 <= max_positions <= block and 1 <= max_prompt <= max_positions; errors name the value.
// Every family passes (no family check here: a decoder that ran only some would check itself).
absl::Status CheckDecoderShape(const GptConfig& config, int B, int max_prompt, int max_positions);

// The input checks every decoder makes, with the errors it returns: Prefill's (after Reset,
// 1 <= P <= max_prompt, B * P tokens) and Step's (position < max_positions, B tokens); every
// token in [0, vocab).
absl::Status CheckPrefillInput(absl::Span<const int32_t> tokens, int P, int B, int position, int max_prompt,
                               int vocab);
absl::Status CheckStepInput(absl::Span<const int32_t> tokens, int B, int position, int max_positions,
                            int vocab);

}  // namespace model

#endif  // MODEL_GPT_DECODER_H_
