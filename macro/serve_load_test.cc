// The request load (serve_load.h): the same seed gives the same load; Poisson arrivals (mean gap
// 1/rate, exponential: standard deviation = mean); rate=inf puts all at 0; lengths cover their
// inclusive ranges uniformly; the rate moves the arrivals only; bad ranges and rates are refused
// naming the flag.
#include "macro/serve_load.h"

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "gtest/gtest.h"

namespace macro {
namespace {

const LengthRange kPrompt{16, 128}, kOutput{16, 64};

TEST(ServeLoad, SameSeedSameLoadOtherSeedAnother) {
  const ServeLoad a = MakeServeLoad(50, 4, kPrompt, kOutput, 100, 7), b = MakeServeLoad(50, 4, kPrompt, kOutput, 100, 7);
  const ServeLoad c = MakeServeLoad(50, 4, kPrompt, kOutput, 100, 8);
  ASSERT_EQ(a.requests.size(), 50u);
  int differ = 0;
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(a.requests[i].id, i);
    EXPECT_EQ(a.requests[i].arrival_s, b.requests[i].arrival_s);
    EXPECT_EQ(a.requests[i].prompt, b.requests[i].prompt);
    EXPECT_EQ(a.requests[i].output, b.requests[i].output);
    EXPECT_EQ(a.prompts[i], b.prompts[i]);
    EXPECT_EQ(static_cast<int>(a.prompts[i].size()), a.requests[i].prompt);
    for (int32_t t : a.prompts[i]) EXPECT_TRUE(t >= 0 && t < 100);
    differ += a.requests[i].arrival_s != c.requests[i].arrival_s;
  }
  EXPECT_EQ(differ, 50);
}

TEST(ServeLoad, PoissonArrivalsAtTheRate) {
  const int n = 20000;
  const double rate = 5;
  const ServeLoad l = MakeServeLoad(n, rate, {1, 1}, {1, 1}, 10, 3);
  double prev = 0, sum = 0, sum2 = 0;
  for (const ServeRequest& r : l.requests) {
    const double gap = r.arrival_s - prev;
    ASSERT_GE(gap, 0);
    prev = r.arrival_s;
    sum += gap;
    sum2 += gap * gap;
  }
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  EXPECT_NEAR(mean, 1 / rate, 0.03 / rate);  // 4 standard errors
  EXPECT_NEAR(sd / mean, 1.0, 0.05);         // exponential gaps
  EXPECT_NEAR(n / l.requests.back().arrival_s, rate, 0.03 * rate);
}

TEST(ServeLoad, TheRateMovesTheArrivalsOnly) {
  const ServeLoad one = MakeServeLoad(30, 1, kPrompt, kOutput, 100, 9), four = MakeServeLoad(30, 4, kPrompt, kOutput, 100, 9);
  const ServeLoad inf = MakeServeLoad(30, std::numeric_limits<double>::infinity(), kPrompt, kOutput, 100, 9);
  for (int i = 0; i < 30; ++i) {
    EXPECT_NEAR(four.requests[i].arrival_s, one.requests[i].arrival_s / 4, 1e-12);
    EXPECT_EQ(inf.requests[i].arrival_s, 0);
    EXPECT_EQ(four.requests[i].prompt, one.requests[i].prompt);
    EXPECT_EQ(inf.requests[i].output, one.requests[i].output);
    EXPECT_EQ(inf.prompts[i], one.prompts[i]);
  }
}

TEST(ServeLoad, LengthsCoverTheirInclusiveRangesUniformly) {
  const int n = 6000;
  const ServeLoad l = MakeServeLoad(n, 1, {3, 8}, {5, 5}, 10, 4);
  std::map<int, int> count;
  for (const ServeRequest& r : l.requests) {
    ++count[r.prompt];
    EXPECT_EQ(r.output, 5);
  }
  ASSERT_EQ(count.size(), 6u);
  EXPECT_EQ(count.begin()->first, 3);
  EXPECT_EQ(count.rbegin()->first, 8);
  for (const auto& [len, c] : count) EXPECT_NEAR(c, n / 6, 150) << len;  // ~5 standard deviations
}

TEST(ServeLoad, BadRangesAndRatesAreRefusedNamingTheFlag) {
  auto has = [](const absl::Status& s, const char* text) {
    return std::string(s.message()).find(text) != std::string::npos;
  };
  EXPECT_EQ(ParseLengthRange("16:128", "prompt", 1024)->hi, 128);
  EXPECT_EQ(ParseLengthRange("7", "prompt", 1024)->lo, 7);
  EXPECT_EQ(ParseLengthRange("7", "prompt", 1024)->ToString(), "7");
  EXPECT_EQ(ParseLengthRange("16:128", "prompt", 1024)->ToString(), "16:128");
  EXPECT_TRUE(has(ParseLengthRange("0:5", "prompt", 10).status(), "--prompt=0:5: 0 is below 1"));
  EXPECT_TRUE(has(ParseLengthRange("5:3", "generate", 10).status(), "--generate=5:3: 5 > 3"));
  EXPECT_TRUE(has(ParseLengthRange("5:30", "generate", 10).status(), "30 is above 10"));
  EXPECT_TRUE(has(ParseLengthRange("a:b", "prompt", 10).status(), "not a length"));
  EXPECT_TRUE(has(ParseLengthRange("", "prompt", 10).status(), "not a length"));
  EXPECT_TRUE(has(ParseLengthRange("1:2:3", "prompt", 10).status(), "not a length"));
  EXPECT_TRUE(std::isinf(*ParseRate("inf", "rate")));
  EXPECT_DOUBLE_EQ(*ParseRate("2.5", "rate"), 2.5);
  for (const char* bad : {"0", "-1", "nan", "abc", "1e999", ""}) {
    EXPECT_TRUE(has(ParseRate(bad, "rate").status(), "not a rate; give requests/s > 0, or inf")) << bad;
  }
  EXPECT_EQ(RateName(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(RateName(2.5), "2.5");
}

}  // namespace
}  // namespace macro
