// The accuracy of a weight format (weight_format.h) against fp32, measured through two decoders
// (gpt_decoder.h) over the same parameters: the fp32 reference and the candidate.
//
// Agreement (MeasureAgreement): B prompts of P tokens, G generated tokens each, teacher-forced on
// the reference's greedy tokens so that both decoders always see the same context (a candidate
// that flips one token would otherwise drift onto another text, and every later step would
// compare different things). A step agrees when the candidate's arg max (ArgmaxRows: over the
// real vocab, ties to the lowest id) is the reference's. Per compared step it also keeps the
// largest |logit difference| over the real vocab, and the reference's top-1 margin (its best
// logit minus its second best): a step whose margin is below twice the step's largest
// difference can flip (each of the two logits may move by that much), so the margins say how
// fragile the agreement figure is. With random-init parameters the logits are near uniform and
// the margins small; with trained ones they are usually far larger.
//
// Perplexity (MeasurePerplexity): exp of the mean negative log-likelihood of each next token of a
// stream, log-softmax over the real vocab in fp64 from the decoder's fp32 logits. The stream is
// fed token by token through Step (one stream, B = 1), in windows of at most max_positions()
// positions, each window starting from an empty cache with its first token as context only; the
// next window starts at the last token the previous one predicted, so every token after the
// first is predicted exactly once (N - 1 predictions for N tokens), with between 1 and
// max_positions tokens of context.
#ifndef MODEL_DECODE_ACCURACY_H_
#define MODEL_DECODE_ACCURACY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "model/gpt_decoder.h"

namespace model {

// The thresholds for a weight format against fp32: greedy top-1 agreement >= 98%, and a
// perplexity within 2% of fp32's.
inline constexpr double kMinTop1Agreement = 0.98;
inline constexpr double kMaxPerplexityRelDiff = 0.02;

struct AgreementReport {
  int streams = 0, generated = 0;  // B prompts, G compared steps each
  int64_t compared = 0, agreed = 0;
  double agreement() const { return compared > 0 ? static_cast<double>(agreed) / compared : 0.0; }
  // |candidate - reference| over the real vocab of every compared step: max, mean, RMS.
  double max_abs_logit_diff = 0, mean_abs_logit_diff = 0, rms_logit_diff = 0;
  // Per compared step, stream-major (B, G): the reference's top-1 margin, the step's largest
  // |logit difference|, and the standard deviation of the reference's logits (their spread).
  std::vector<double> margins, step_max_diffs, logit_stds;
  // Steps whose margin is at most twice their largest difference (could flip), and those of
  // them that did.
  int64_t fragile = 0, fragile_flipped = 0;
  std::vector<int32_t> reference_tokens;  // (B, G): the reference's greedy tokens, fed to both
};

// prompts: (B, P) with B = both decoders' streams; P <= their max prompt; P + G - 1 <=
// max_positions (the prefill's logits give the first token, G - 1 steps the rest). Errors:
// decoders of different shapes (B, vocab, padded vocab), G < 1, and any decoder error.
absl::StatusOr<AgreementReport> MeasureAgreement(GptDecoder* reference, GptDecoder* candidate,
                                                 absl::Span<const int32_t> prompts, int P, int G);

struct PerplexityReport {
  int64_t tokens = 0, predictions = 0;  // N, N - 1
  int windows = 0, window = 0;          // windows run, positions a window holds at most
  double mean_nll = 0;                  // nats per predicted token
  double perplexity() const;            // exp(mean_nll)
};

// stream: N >= 2 tokens in [0, vocab). Errors: a decoder with B != 1, a short stream or an
// out-of-range token (naming its index and value), any decoder error.
absl::StatusOr<PerplexityReport> MeasurePerplexity(GptDecoder* decoder, absl::Span<const int32_t> stream);

// -log softmax(logits[0 .. V))[target] in fp64 (max-subtracted log-sum-exp).
double NegLogLikelihood(const float* logits, int64_t V, int32_t target);

// The best logit of a row of V >= 2 minus its second best (a tie for the best: 0).
double Top1Margin(const float* logits, int64_t V);

}  // namespace model

#endif  // MODEL_DECODE_ACCURACY_H_
