// Tokens per second that carries its numerator and its denominator (nanoGPT's bench.py counts batch x block tokens per step).
//
// Numerator: whose tokens (one rank, or all ranks of a world), and whether the micro-batches of
// gradient accumulation are in it. Denominator: what the timed window contains (data loading,
// compute, optimizer, logging, compile/warm-up, ...). ToString() prints both with the figure.
// Training and generation throughput are different types (Throughput<TrainingKind> and
// Throughput<GenerationKind>): comparing one with the other does not compile. Two figures of the
// same kind compare only when numerator scope and denominator match; otherwise an error says
// what differs.
#ifndef ACCOUNTING_THROUGHPUT_H_
#define ACCOUNTING_THROUGHPUT_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace accounting {

enum class RankScope { kOneRank, kAllRanks };

struct TokenCount {
  double tokens = 0;                 // counted tokens (generation: newly generated tokens only)
  RankScope ranks = RankScope::kOneRank;
  int world_size = 1;                // ranks in the run (kAllRanks sums over these)
  bool includes_grad_accum = false;  // training: every accumulation micro-batch is counted
};

// What the timed window includes. compute is always in it.
struct TimedPhases {
  bool data = false;        // fetching / loading / host->device copy of batches
  bool optimizer = false;   // optimizer step (training)
  bool logging = false;     // loss.item(), printing
  bool warmup = false;      // compile, autotune, first steps
  bool validation = false;  // eval passes, checkpoints
  std::string Describe() const;  // "compute+data+optimizer"
  bool operator==(const TimedPhases& o) const;
  bool operator!=(const TimedPhases& o) const { return !(*this == o); }
};

struct TrainingKind {
  static constexpr std::string_view kName = "training";
};
struct GenerationKind {
  static constexpr std::string_view kName = "generation";
};

template <class Kind>
class Throughput {
 public:
  // Errors: tokens < 0 or non-finite, seconds <= 0, world_size < 1, grad-accum on generation.
  static absl::StatusOr<Throughput> Make(const TokenCount& numerator, double seconds,
                                         const TimedPhases& denominator);

  double tokens_per_second() const { return numerator_.tokens / seconds_; }
  const TokenCount& numerator() const { return numerator_; }
  double seconds() const { return seconds_; }
  const TimedPhases& denominator() const { return denominator_; }

  // A kAllRanks figure divided by the world size (equal work per rank assumed); kOneRank as is.
  Throughput PerRank() const;

  // "12000.0 tokens/s [training; numerator: 600000 tokens, all 8 ranks, incl. grad-accum
  //  micro-batches; denominator: 50.000 s of compute+data+optimizer]"
  std::string ToString() const;

  // this / other: error naming what differs when scope, world size, grad-accum or phases differ.
  absl::StatusOr<double> RatioTo(const Throughput& other) const;

 private:
  Throughput(const TokenCount& n, double s, const TimedPhases& d)
      : numerator_(n), seconds_(s), denominator_(d) {}
  TokenCount numerator_;
  double seconds_ = 0;
  TimedPhases denominator_;
};

using TrainingThroughput = Throughput<TrainingKind>;
using GenerationThroughput = Throughput<GenerationKind>;

extern template class Throughput<TrainingKind>;
extern template class Throughput<GenerationKind>;

}  // namespace accounting

#endif  // ACCOUNTING_THROUGHPUT_H_
