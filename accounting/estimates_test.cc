// Estimates: ranges and errors (the worked examples are in worked_examples_test.cc).
#include "accounting/estimates.h"

#include "gtest/gtest.h"

namespace accounting {
namespace {

bool MessageHas(const absl::Status& s, std::string_view text) {
  return std::string(s.message()).find(text) != std::string::npos;
}

TEST(Estimates, MfuMustBeInZeroOne) {
  EXPECT_TRUE(TrainingDays(7e9, 1e12, 64, 312e12, 1.0).ok());
  absl::StatusOr<double> high = TrainingDays(7e9, 1e12, 64, 312e12, 1.5);
  ASSERT_FALSE(high.ok());
  EXPECT_TRUE(MessageHas(high.status(), "mfu=1.5")) << high.status();
  EXPECT_TRUE(MessageHas(high.status(), "(0, 1]"));
  EXPECT_FALSE(TrainingDays(7e9, 1e12, 64, 312e12, 0).ok());
  EXPECT_FALSE(TrainingDays(7e9, 1e12, 64, 312e12, -0.3).ok());
  EXPECT_FALSE(TokensAffordable(1e21, 1e9, 45).ok());  // 45 (%) is not a fraction
}

TEST(Estimates, OtherInputsMustBePositive) {
  absl::StatusOr<double> d = TrainingDays(7e9, 1e12, 0, 312e12, 0.5);
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(MessageHas(d.status(), "devices=0"));
  EXPECT_FALSE(TrainingDays(-7e9, 1e12, 8, 312e12, 0.5).ok());
  EXPECT_FALSE(TrainingDays(7e9, 0, 8, 312e12, 0.5).ok());
  EXPECT_FALSE(DecodeTokensPerSecondBound(7e9, 0, 2e12).ok());
  EXPECT_FALSE(DecodeTokensPerSecondBound(7e9, 2, -1).ok());
  EXPECT_FALSE(FlopBudget(8, 1e15, 0).ok());
}

TEST(Estimates, ScaleAsExpected) {
  // Twice the devices halves the time; twice the bytes per param halves the decode bound.
  EXPECT_DOUBLE_EQ(*TrainingDays(1e9, 1e11, 8, 1e14, 0.5) / *TrainingDays(1e9, 1e11, 16, 1e14, 0.5), 2);
  EXPECT_DOUBLE_EQ(*DecodeTokensPerSecondBound(7e9, 1, 2e12) / *DecodeTokensPerSecondBound(7e9, 2, 2e12), 2);
  // Budget to tokens and back: the tokens affordable take exactly the budget at that MFU.
  const double budget = *FlopBudget(8, 1e15, 3600);
  const double tokens = *TokensAffordable(budget, 1e9, 0.4);
  EXPECT_NEAR(*TrainingSeconds(1e9, tokens, 8, 1e15, 0.4), 3600, 1e-6);
}

}  // namespace
}  // namespace accounting
