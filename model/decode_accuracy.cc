// Agreement and perplexity of a candidate decoder against the fp32 one (decode_accuracy.h).
#include "model/decode_accuracy.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"

namespace model {
namespace {

absl::Status SameShape(GptDecoder* reference, GptDecoder* candidate) {
  const GptConfig& r = reference->config();
  const GptConfig& c = candidate->config();
  if (reference->B() != candidate->B() || r.vocab != c.vocab || r.padded_vocab != c.padded_vocab) {
    return absl::InvalidArgumentError(absl::StrCat("the decoders differ: reference B=", reference->B(), " vocab ",
                                                   r.vocab, " (padded ", r.padded_vocab, "), candidate B=",
                                                   candidate->B(), " vocab ", c.vocab, " (padded ",
                                                   c.padded_vocab, ")"));
  }
  return absl::OkStatus();
}

double RowStd(const float* row, int64_t V) {
  double sum = 0, sq = 0;
  for (int64_t v = 0; v < V; ++v) {
    sum += row[v];
    sq += static_cast<double>(row[v]) * row[v];
  }
  const double mean = sum / static_cast<double>(V);
  return std::sqrt(std::max(0.0, sq / static_cast<double>(V) - mean * mean));
}

// Accumulates one compared step (the logits after a Prefill or a Step) into `r`; `step` is the
// generated token's index, `next` gets the reference's greedy tokens.
struct Comparer {
  AgreementReport* r;
  int64_t V, Vp;
  double sum_abs = 0, sum_sq = 0;
  std::vector<float> ref_logits, cand_logits;
  std::vector<int32_t> cand_next;

  absl::Status Compare(GptDecoder* reference, GptDecoder* candidate, int step, std::vector<int32_t>* next) {
    if (auto st = reference->CopyLogitsToHost(&ref_logits); !st.ok()) return st;
    if (auto st = candidate->CopyLogitsToHost(&cand_logits); !st.ok()) return st;
    const int64_t B = reference->B();
    ArgmaxRows(ref_logits.data(), B, V, Vp, next);
    ArgmaxRows(cand_logits.data(), B, V, Vp, &cand_next);
    for (int64_t b = 0; b < B; ++b) {
      const float* ref = ref_logits.data() + b * Vp;
      const float* cand = cand_logits.data() + b * Vp;
      double step_max = 0;
      for (int64_t v = 0; v < V; ++v) {
        const double d = std::fabs(static_cast<double>(cand[v]) - ref[v]);
        if (!(d <= step_max)) step_max = d;  // a NaN sticks
        sum_abs += d;
        sum_sq += d * d;
      }
      const size_t i = static_cast<size_t>(b * r->generated + step);
      const double margin = Top1Margin(ref, V);
      const bool agreed = cand_next[b] == (*next)[b];
      r->margins[i] = margin;
      r->step_max_diffs[i] = step_max;
      r->logit_stds[i] = RowStd(ref, V);
      r->reference_tokens[i] = (*next)[b];
      r->agreed += agreed ? 1 : 0;
      ++r->compared;
      if (!(step_max <= r->max_abs_logit_diff)) r->max_abs_logit_diff = step_max;
      if (margin <= 2 * step_max) {
        ++r->fragile;
        r->fragile_flipped += agreed ? 0 : 1;
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

double NegLogLikelihood(const float* logits, int64_t V, int32_t target) {
  double m = logits[0];
  for (int64_t v = 1; v < V; ++v) m = std::max(m, static_cast<double>(logits[v]));
  double s = 0;
  for (int64_t v = 0; v < V; ++v) s += std::exp(static_cast<double>(logits[v]) - m);
  return m + std::log(s) - static_cast<double>(logits[target]);
}

double Top1Margin(const float* logits, int64_t V) {
  double best = -INFINITY, second = -INFINITY;
  for (int64_t v = 0; v < V; ++v) {
    const double x = logits[v];
    if (x > best) {
      second = best;
      best = x;
    } else if (x > second) {
      second = x;
    }
  }
  return best - second;
}

double PerplexityReport::perplexity() const { return std::exp(mean_nll); }

absl::StatusOr<AgreementReport> MeasureAgreement(GptDecoder* reference, GptDecoder* candidate,
                                                 absl::Span<const int32_t> prompts, int P, int G) {
  if (auto st = SameShape(reference, candidate); !st.ok()) return st;
  if (G < 1) return absl::InvalidArgumentError(absl::StrCat("G=", G, " generated tokens: must be >= 1"));
  const int B = reference->B();
  AgreementReport r;
  r.streams = B;
  r.generated = G;
  const size_t n = static_cast<size_t>(B) * G;
  r.margins.assign(n, 0);
  r.step_max_diffs.assign(n, 0);
  r.logit_stds.assign(n, 0);
  r.reference_tokens.assign(n, 0);
  Comparer cmp{&r, reference->config().vocab, reference->config().padded_vocab};
  std::vector<int32_t> next;
  reference->Reset();
  candidate->Reset();
  if (auto st = reference->Prefill(prompts, P); !st.ok()) return st;
  if (auto st = candidate->Prefill(prompts, P); !st.ok()) return st;
  if (auto st = cmp.Compare(reference, candidate, 0, &next); !st.ok()) return st;
  for (int step = 1; step < G; ++step) {
    // Teacher forcing: both decoders take the reference's pick.
    if (auto st = reference->Step(next); !st.ok()) return st;
    if (auto st = candidate->Step(next); !st.ok()) return st;
    if (auto st = cmp.Compare(reference, candidate, step, &next); !st.ok()) return st;
  }
  const double elements = static_cast<double>(r.compared) * static_cast<double>(cmp.V);
  r.mean_abs_logit_diff = cmp.sum_abs / elements;
  r.rms_logit_diff = std::sqrt(cmp.sum_sq / elements);
  return r;
}

absl::StatusOr<PerplexityReport> MeasurePerplexity(GptDecoder* d, absl::Span<const int32_t> stream) {
  if (d->B() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("perplexity runs one stream: the decoder has B=", d->B()));
  }
  const int64_t N = static_cast<int64_t>(stream.size());
  const int vocab = d->config().vocab;
  if (N < 2) return absl::InvalidArgumentError(absl::StrCat("a stream of ", N, " tokens: at least 2 are needed"));
  for (int64_t i = 0; i < N; ++i) {
    if (stream[i] < 0 || stream[i] >= vocab) {
      return absl::InvalidArgumentError(
          absl::StrCat("stream token ", i, " is ", stream[i], ", outside the vocabulary [0, ", vocab, ")"));
    }
  }
  PerplexityReport r;
  r.tokens = N;
  r.window = d->max_positions();
  std::vector<float> logits;
  double nll = 0;
  for (int64_t start = 0; start + 1 < N; start += r.window) {
    const int64_t end = std::min(N - 1, start + r.window);  // predicts tokens start+1 .. end
    d->Reset();
    ++r.windows;
    for (int64_t t = start; t < end; ++t) {
      absl::Span<const int32_t> tok = stream.subspan(static_cast<size_t>(t), 1);
      if (auto st = t == start ? d->Prefill(tok, 1) : d->Step(tok); !st.ok()) return st;
      if (auto st = d->CopyLogitsToHost(&logits); !st.ok()) return st;
      nll += NegLogLikelihood(logits.data(), vocab, stream[t + 1]);
      ++r.predictions;
    }
  }
  r.mean_nll = nll / static_cast<double>(r.predictions);
  return r;
}

}  // namespace model
