// --find_max_rate's bisection (serve_find.h) with synthetic trials: a threshold it narrows to
// within (high - low) / 2^steps, the low bound failing, the high bound passing, errors.
#include "macro/serve_find.h"

#include <vector>

#include "gtest/gtest.h"

namespace macro {
namespace {

// Passes at rates <= threshold; records the rates tried.
auto Threshold(double threshold, std::vector<double>* tried) {
  return [=](double rate) -> absl::StatusOr<RateTrial> {
    tried->push_back(rate);
    RateTrial t;
    t.pass = rate <= threshold;
    return t;
  };
}

TEST(FindMaxRate, NarrowsToTheThreshold) {
  std::vector<double> tried;
  auto r = FindMaxRate(1, 17, 4, Threshold(6.5, &tried));
  ASSERT_TRUE(r.ok()) << r.status();
  // 1 pass, 17 fail, 9 fail, 5 pass, 7 fail, 6 pass.
  EXPECT_EQ(tried, (std::vector<double>{1, 17, 9, 5, 7, 6}));
  EXPECT_TRUE(r->found);
  EXPECT_DOUBLE_EQ(r->rate, 6);
  EXPECT_DOUBLE_EQ(r->failed_rate, 7);
  ASSERT_NE(r->best(), nullptr);
  EXPECT_DOUBLE_EQ(r->best()->rate, 6);
  EXPECT_EQ(r->trials.size(), 6u);
  EXPECT_LE(r->failed_rate - r->rate, (17.0 - 1) / 16);
}

TEST(FindMaxRate, LowBoundFailingEndsTheSearch) {
  std::vector<double> tried;
  auto r = FindMaxRate(2, 8, 5, Threshold(1, &tried));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->found);
  EXPECT_EQ(r->best(), nullptr);
  EXPECT_EQ(tried, (std::vector<double>{2}));
  EXPECT_DOUBLE_EQ(r->failed_rate, 2);
}

TEST(FindMaxRate, HighBoundPassingIsTheAnswer) {
  std::vector<double> tried;
  auto r = FindMaxRate(2, 8, 5, Threshold(100, &tried));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->found);
  EXPECT_DOUBLE_EQ(r->rate, 8);
  EXPECT_DOUBLE_EQ(r->failed_rate, 0);
  EXPECT_EQ(tried.size(), 2u);
}

TEST(FindMaxRate, ErrorsEndTheSearch) {
  std::vector<double> tried;
  EXPECT_FALSE(FindMaxRate(0, 8, 5, Threshold(1, &tried)).ok());
  EXPECT_FALSE(FindMaxRate(3, 2, 5, Threshold(1, &tried)).ok());
  EXPECT_TRUE(tried.empty());
  int calls = 0;
  auto r = FindMaxRate(1, 2, 3, [&](double) -> absl::StatusOr<RateTrial> {
    ++calls;
    return absl::InternalError("broken run");
  });
  EXPECT_EQ(r.status().message(), "broken run");
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace macro
