// Throughput carries numerator and denominator; training and generation do not mix.
#include "accounting/throughput.h"

#include <type_traits>
#include <utility>

#include "gtest/gtest.h"

namespace accounting {
namespace {

// Detects whether a.RatioTo(b) compiles.
template <class A, class B, class = void>
struct CanCompare : std::false_type {};
template <class A, class B>
struct CanCompare<A, B, std::void_t<decltype(std::declval<A>().RatioTo(std::declval<B>()))>>
    : std::true_type {};

static_assert(CanCompare<TrainingThroughput, TrainingThroughput>::value);
static_assert(CanCompare<GenerationThroughput, GenerationThroughput>::value);
static_assert(!CanCompare<TrainingThroughput, GenerationThroughput>::value,
              "training and generation throughput must not be comparable");
static_assert(!CanCompare<GenerationThroughput, TrainingThroughput>::value);

TimedPhases LoopPhases() {
  TimedPhases p;
  p.data = true;
  p.optimizer = true;
  p.logging = true;
  return p;
}

TEST(Throughput, PrintsNumeratorAndDenominator) {
  absl::StatusOr<TrainingThroughput> t = TrainingThroughput::Make(
      {/*tokens=*/600000, RankScope::kAllRanks, /*world_size=*/8, /*includes_grad_accum=*/true},
      /*seconds=*/50, LoopPhases());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_DOUBLE_EQ(t->tokens_per_second(), 12000);
  const std::string s = t->ToString();
  EXPECT_NE(s.find("12000.0 tokens/s"), std::string::npos) << s;
  EXPECT_NE(s.find("training"), std::string::npos) << s;
  EXPECT_NE(s.find("all 8 ranks"), std::string::npos) << s;
  EXPECT_NE(s.find("grad-accum"), std::string::npos) << s;
  EXPECT_NE(s.find("50.000 s of compute+data+optimizer+logging"), std::string::npos) << s;
  TrainingThroughput r = t->PerRank();
  EXPECT_DOUBLE_EQ(r.tokens_per_second(), 1500);
  EXPECT_NE(r.ToString().find("one rank of 8"), std::string::npos) << r.ToString();
}

TEST(Throughput, SameKindComparesOnlyWithTheSameDefinition) {
  TokenCount n{1000, RankScope::kOneRank, 1, false};
  TrainingThroughput a = *TrainingThroughput::Make(n, 1, LoopPhases());
  TrainingThroughput b = *TrainingThroughput::Make(n, 2, LoopPhases());
  EXPECT_DOUBLE_EQ(*a.RatioTo(b), 2.0);

  TimedPhases compute_only;
  TrainingThroughput c = *TrainingThroughput::Make(n, 1, compute_only);
  absl::StatusOr<double> bad = a.RatioTo(c);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("timed phases"), std::string::npos) << bad.status();

  TokenCount all = n;
  all.ranks = RankScope::kAllRanks;
  all.world_size = 4;
  TrainingThroughput d = *TrainingThroughput::Make(all, 1, LoopPhases());
  EXPECT_FALSE(a.RatioTo(d).ok());
  // Per-rank figures of different world sizes compare (scaling efficiency): 1000 vs 250 tokens/s.
  absl::StatusOr<double> per_rank = a.RatioTo(d.PerRank());
  ASSERT_TRUE(per_rank.ok()) << per_rank.status();
  EXPECT_DOUBLE_EQ(*per_rank, 4.0);
}

TEST(Throughput, GenerationCountsNewTokensOnly) {
  absl::StatusOr<GenerationThroughput> g =
      GenerationThroughput::Make({500, RankScope::kOneRank, 1, false}, 10, TimedPhases{});
  ASSERT_TRUE(g.ok());
  EXPECT_NE(g->ToString().find("generation"), std::string::npos);
  EXPECT_NE(g->ToString().find("new tokens only"), std::string::npos);
  EXPECT_FALSE(GenerationThroughput::Make({500, RankScope::kOneRank, 1, true}, 10, TimedPhases{}).ok());
}

TEST(Throughput, BadValues) {
  EXPECT_FALSE(TrainingThroughput::Make({100, RankScope::kOneRank, 1, false}, 0, {}).ok());
  EXPECT_FALSE(TrainingThroughput::Make({-1, RankScope::kOneRank, 1, false}, 1, {}).ok());
  EXPECT_FALSE(TrainingThroughput::Make({100, RankScope::kAllRanks, 0, false}, 1, {}).ok());
}

}  // namespace
}  // namespace accounting
