// Throughput with its numerator and denominator.
#include "accounting/throughput.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace accounting {

std::string TimedPhases::Describe() const {
  std::vector<std::string> parts = {"compute"};
  if (data) parts.push_back("data");
  if (optimizer) parts.push_back("optimizer");
  if (logging) parts.push_back("logging");
  if (warmup) parts.push_back("compile/warm-up");
  if (validation) parts.push_back("validation");
  return absl::StrJoin(parts, "+");
}

bool TimedPhases::operator==(const TimedPhases& o) const {
  return data == o.data && optimizer == o.optimizer && logging == o.logging && warmup == o.warmup &&
         validation == o.validation;
}

template <class Kind>
absl::StatusOr<Throughput<Kind>> Throughput<Kind>::Make(const TokenCount& n, double seconds,
                                                        const TimedPhases& d) {
  if (!(n.tokens >= 0) || !std::isfinite(n.tokens)) {
    return absl::InvalidArgumentError(
        absl::StrCat("tokens=", n.tokens, " is invalid: must be finite and >= 0"));
  }
  if (!(seconds > 0) || !std::isfinite(seconds)) {
    return absl::InvalidArgumentError(
        absl::StrCat("seconds=", seconds, " is invalid: must be finite and > 0"));
  }
  if (n.world_size < 1) {
    return absl::InvalidArgumentError(absl::StrCat("world_size=", n.world_size, " is invalid: must be >= 1"));
  }
  if (Kind::kName == GenerationKind::kName && n.includes_grad_accum) {
    return absl::InvalidArgumentError("generation throughput has no gradient-accumulation micro-batches");
  }
  return Throughput(n, seconds, d);
}

template <class Kind>
Throughput<Kind> Throughput<Kind>::PerRank() const {
  if (numerator_.ranks == RankScope::kOneRank) return *this;
  TokenCount n = numerator_;
  n.tokens /= n.world_size;
  n.ranks = RankScope::kOneRank;
  return Throughput(n, seconds_, denominator_);
}

template <class Kind>
std::string Throughput<Kind>::ToString() const {
  std::string who = numerator_.ranks == RankScope::kAllRanks
                        ? absl::StrCat("all ", numerator_.world_size, " ranks")
                        : absl::StrCat("one rank of ", numerator_.world_size);
  std::string what =
      Kind::kName == GenerationKind::kName
          ? "new tokens only"
          : (numerator_.includes_grad_accum ? "incl. grad-accum micro-batches" : "one micro-batch per step");
  return absl::StrFormat("%.1f tokens/s [%s; numerator: %.0f tokens, %s, %s; denominator: %.3f s of %s]",
                         tokens_per_second(), std::string(Kind::kName), numerator_.tokens, who, what,
                         seconds_, denominator_.Describe());
}

template <class Kind>
absl::StatusOr<double> Throughput<Kind>::RatioTo(const Throughput& other) const {
  std::vector<std::string> diffs;
  if (numerator_.ranks != other.numerator_.ranks) diffs.push_back("rank scope");
  if (numerator_.world_size != other.numerator_.world_size && numerator_.ranks == RankScope::kAllRanks) {
    diffs.push_back("world size");
  }
  if (numerator_.includes_grad_accum != other.numerator_.includes_grad_accum) {
    diffs.push_back("grad-accum counting");
  }
  if (denominator_ != other.denominator_) {
    diffs.push_back(
        absl::StrCat("timed phases (", denominator_.Describe(), " vs ", other.denominator_.Describe(), ")"));
  }
  if (!diffs.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot compare ", std::string(Kind::kName), " throughputs: they differ in ",
                     absl::StrJoin(diffs, ", "), "\n  this:  ", ToString(), "\n  other: ", other.ToString()));
  }
  if (!(other.tokens_per_second() > 0)) {
    return absl::InvalidArgumentError("cannot compare with a throughput of 0 tokens/s");
  }
  return tokens_per_second() / other.tokens_per_second();
}

template class Throughput<TrainingKind>;
template class Throughput<GenerationKind>;

}  // namespace accounting
