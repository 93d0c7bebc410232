// gpt_serve's figures (serve_report.h): the percentiles against lists worked out with numpy's
// default (linear) method; the summary, the batch timeline, the limit verdicts and the JSON of
// the scheduler's hand-worked fixture (serve_scheduler_test.cc's, run here by a fixed-cost loop).
#include "macro/serve_report.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "macro/gpt_decode_session.h"

namespace macro {
namespace {

TEST(ServeReport, PercentilesAreNumpysLinear) {
  // numpy.percentile([15, 20, 35, 40, 50], [50, 90, 99]) = [35, 46, 49.6]; given unsorted.
  const LatencyStats a = ComputeLatencyStats({40, 15, 50, 35, 20});
  EXPECT_DOUBLE_EQ(a.p50, 35);
  EXPECT_DOUBLE_EQ(a.p90, 46);
  EXPECT_DOUBLE_EQ(a.p99, 49.6);
  EXPECT_DOUBLE_EQ(a.mean, 32);
  EXPECT_EQ(a.n, 5);
  // numpy.percentile(range(1, 11), [50, 90, 99]) = [5.5, 9.1, 9.91].
  std::vector<double> ten;
  for (int i = 10; i >= 1; --i) ten.push_back(i);
  EXPECT_DOUBLE_EQ(Percentile(ten, 50), 5.5);
  EXPECT_NEAR(Percentile(ten, 90), 9.1, 1e-12);
  EXPECT_NEAR(Percentile(ten, 99), 9.91, 1e-12);
  EXPECT_DOUBLE_EQ(Percentile({7}, 99), 7);
  EXPECT_EQ(ComputeLatencyStats({}).n, 0);
}

// The fixture of serve_scheduler_test.cc on 2 slots, prefill 3 s and decode 1 s a step.
ServeScheduler Fixture(double stop_at = 1e9) {
  auto s = ServeScheduler::Create({{2, 2.0, 5, 1}, {0, 0.0, 4, 3}, {3, 20.0, 3, 2}, {1, 1.0, 2, 2}}, 2);
  EXPECT_TRUE(s.ok());
  double now = 0;
  for (ServeAction a = s->Next(now); a.kind != ServeAction::Kind::kDone && now < stop_at; a = s->Next(now)) {
    if (a.kind == ServeAction::Kind::kWait) {
      now = a.until_s;
      continue;
    }
    const double end = now + (a.kind == ServeAction::Kind::kPrefill ? 3 : 1);
    EXPECT_TRUE(s->Complete(a, now, end).ok());
    now = end;
  }
  return *std::move(s);
}

TEST(ServeReport, SummaryOfTheFixture) {
  const ServeScheduler s = Fixture();
  const ServeSummary m = Summarize(s, 24);
  EXPECT_EQ(m.requests, 4);
  EXPECT_EQ(m.finished, 4);
  EXPECT_EQ(m.output_tokens, 3 + 2 + 1 + 2);
  EXPECT_DOUBLE_EQ(m.duration_s, 24);
  EXPECT_DOUBLE_EQ(m.output_tokens_per_s, 8.0 / 24);
  EXPECT_DOUBLE_EQ(m.requests_per_s, 4.0 / 24);
  // TTFT 3, 5, 8, 3 s; TPOT 4, 1 s (r2 has one token); queue 0, 2, 5, 0 s; prefill 3 s each.
  EXPECT_DOUBLE_EQ(m.ttft_ms.p50, 4000);
  EXPECT_DOUBLE_EQ(m.ttft_ms.p99, 5000 + 0.97 * 3000);
  EXPECT_EQ(m.tpot_ms.n, 3);
  EXPECT_DOUBLE_EQ(m.tpot_ms.p50, 1000);
  EXPECT_DOUBLE_EQ(m.tpot_ms.mean, 2000);
  EXPECT_DOUBLE_EQ(m.queue_ms.mean, 7000.0 / 4);
  EXPECT_DOUBLE_EQ(m.prefill_ms.p99, 3000);
  EXPECT_EQ(m.prefill_steps, 4);
  EXPECT_EQ(m.decode_steps, 3);
  EXPECT_DOUBLE_EQ(m.prefill_busy_s, 12);
  EXPECT_DOUBLE_EQ(m.decode_busy_s, 3);
  EXPECT_DOUBLE_EQ(m.mean_decode_batch, 4.0 / 3);
  EXPECT_EQ(m.batch_histogram, (std::vector<int>{0, 2, 1}));
  // One slice a second: decode steps at 6 (batch 2), 10 and 23 (batch 1).
  EXPECT_EQ(m.timeline, "......2...1............1");
  const std::vector<std::string> lines = SummaryLines(m, 2);
  EXPECT_NE(lines[1].find("TTFT"), std::string::npos);
  EXPECT_NE(lines.back().find("|......2...1............1|"), std::string::npos);
}

TEST(ServeReport, TimelineWeighsStepsByTheirTimeInEachSlice) {
  // Slice 0 ([0, 2)): batch 4 for 1 s, batch 1 for 0.5 s -> 3.0; slice 1 ([2, 4)): batch 1 for
  // 0.5 s, then nothing; 12 slots: 0-9 of 12.
  const std::vector<ServeStep> steps = {{ServeStepKind::kDecode, 0, 1, 4, 4},
                                        {ServeStepKind::kPrefill, 1, 0.5, 1, 9},
                                        {ServeStepKind::kDecode, 1.5, 1, 1, 1}};
  EXPECT_EQ(BatchTimeline(steps, 4, 8, 2), "31");
  EXPECT_EQ(BatchTimeline(steps, 4, 12, 2), "21");  // 9 * 3 / 12 = 2.25, 9 * 1 / 12 = 0.75
  EXPECT_EQ(BatchTimeline(steps, 8, 8, 4), "31..");
}

TEST(ServeReport, LimitsPassOrFailOnTheP99s) {
  const ServeSummary m = Summarize(Fixture(), 10);
  std::vector<LimitCheck> c = CheckLimits(m, 8000, 4000);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_TRUE(AllPass(c));
  EXPECT_EQ(c[0].Line(), "TTFT p99 7910.0 ms <= limit 8000 ms: PASS");
  c = CheckLimits(m, 7000, 0);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_FALSE(AllPass(c));
  EXPECT_EQ(c[0].Line(), "TTFT p99 7910.0 ms > limit 7000 ms: FAIL");
  EXPECT_TRUE(CheckLimits(m, 0, 0).empty());
  // A run stopped before every request finished fails its limits whatever its p99s.
  const ServeSummary part = Summarize(Fixture(15), 10);
  EXPECT_EQ(part.finished, 3);
  EXPECT_FALSE(AllPass(CheckLimits(part, 1e9, 1e9)));
}

TEST(ServeReport, JsonHasEveryRequestAndStep) {
  const ServeScheduler s = Fixture();
  const nlohmann::ordered_json j = RunJson(s, Summarize(s, 10));
  ASSERT_EQ(j["requests"].size(), 4u);
  ASSERT_EQ(j["steps"].size(), 7u);
  EXPECT_EQ(j["requests"][2]["tokens"], 1);
  EXPECT_TRUE(j["requests"][2]["tpot_s"].is_null());
  EXPECT_DOUBLE_EQ(j["requests"][1]["queue_s"].get<double>(), 2);
  EXPECT_DOUBLE_EQ(j["requests"][1]["ttft_s"].get<double>(), 5);
  EXPECT_EQ(j["steps"][2]["kind"], "decode");
  EXPECT_EQ(j["steps"][2]["batch"], 2);
  EXPECT_EQ(j["summary"]["output_tokens"], 8);
}

}  // namespace
}  // namespace macro
