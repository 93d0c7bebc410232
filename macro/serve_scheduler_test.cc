// The serving scheduler (serve_scheduler.h) run by the loop (serve_loop.h) on a fake clock with
// an executor of fixed costs: a fixture of arrival times worked by hand (who joins when, which
// slots free, each step's batch, each request's queue, TTFT and TPOT), the invariants over a
// random load, the deadline, and the errors.
#include "macro/serve_scheduler.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "macro/serve_loop.h"
#include "model/data/rng.h"

namespace macro {
namespace {

class FakeClock final : public ServeClock {
 public:
  double Now() override { return now_; }
  void SleepUntil(double t) override { now_ = std::max(now_, t); }
  void Advance(double s) { now_ += s; }

 private:
  double now_ = 0;
};

// Prefill: prefill_s a request; decode: decode_s a step whatever its batch. Logs every call.
class FixedCostExecutor final : public ServeExecutor {
 public:
  FixedCostExecutor(FakeClock* clock, double prefill_s, double decode_s)
      : clock_(clock), prefill_s_(prefill_s), decode_s_(decode_s) {}
  absl::Status Prefill(const ServeRequest& r, int slot) override {
    log_.push_back("prefill r" + std::to_string(r.id) + " s" + std::to_string(slot));
    clock_->Advance(prefill_s_);
    return absl::OkStatus();
  }
  absl::Status Decode(absl::Span<const int> slots, absl::Span<const int> requests) override {
    std::string line = "decode";
    for (size_t i = 0; i < slots.size(); ++i) line += " r" + std::to_string(requests[i]) + "@s" + std::to_string(slots[i]);
    log_.push_back(line);
    clock_->Advance(decode_s_);
    return absl::OkStatus();
  }
  absl::Status Free(int slot) override {
    log_.push_back("free s" + std::to_string(slot));
    return absl::OkStatus();
  }
  const std::vector<std::string>& log() const { return log_; }

 private:
  FakeClock* clock_;
  double prefill_s_, decode_s_;
  std::vector<std::string> log_;
};

// Given in shuffled order: the scheduler runs them by arrival.
std::vector<ServeRequest> Fixture() {
  return {{2, 2.0, 5, 1}, {0, 0.0, 4, 3}, {3, 20.0, 3, 2}, {1, 1.0, 2, 2}};
}

TEST(ServeScheduler, FixtureByHand) {
  auto s = ServeScheduler::Create(Fixture(), 2);
  ASSERT_TRUE(s.ok()) << s.status();
  FakeClock clock;
  FixedCostExecutor exec(&clock, 3, 1);
  ASSERT_TRUE(RunServe(&*s, &clock, &exec, 1e9, nullptr).ok());
  // t=0 r0 takes slot 0; t=3 r1 (waiting since 1) takes slot 1; t=6 r2 has waited since 2 but no
  // slot is free: a decode step of both; r1's second token ends it at 7 and frees slot 1, which r2
  // takes at 7; r2 wants one token, its prefill's, and frees slot 1 at 10; r0 decodes alone to its
  // third token at 11; nothing until r3 arrives at 20.
  const std::vector<std::string> want = {
      "prefill r0 s0", "prefill r1 s1", "decode r0@s0 r1@s1", "free s1", "prefill r2 s1", "free s1",
      "decode r0@s0",  "free s0",       "prefill r3 s0",      "decode r3@s0", "free s0"};
  EXPECT_EQ(exec.log(), want);

  struct Want {
    ServeStepKind kind;
    double start;
    int batch, tokens;
  };
  const std::vector<Want> steps = {{ServeStepKind::kPrefill, 0, 1, 4},  {ServeStepKind::kPrefill, 3, 1, 2},
                                   {ServeStepKind::kDecode, 6, 2, 2},   {ServeStepKind::kPrefill, 7, 1, 5},
                                   {ServeStepKind::kDecode, 10, 1, 1},  {ServeStepKind::kPrefill, 20, 1, 3},
                                   {ServeStepKind::kDecode, 23, 1, 1}};
  ASSERT_EQ(s->steps().size(), steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(s->steps()[i].kind, steps[i].kind);
    EXPECT_DOUBLE_EQ(s->steps()[i].start_s, steps[i].start);
    EXPECT_DOUBLE_EQ(s->steps()[i].duration_s, steps[i].kind == ServeStepKind::kPrefill ? 3 : 1);
    EXPECT_EQ(s->steps()[i].batch, steps[i].batch);
    EXPECT_EQ(s->steps()[i].tokens, steps[i].tokens);
  }
  struct WantRecord {
    int slot;
    double queue, ttft, finish;
    bool has_tpot;
    double tpot;
  };
  const std::vector<WantRecord> records = {
      {0, 0, 3, 11, true, 4}, {1, 2, 5, 7, true, 1}, {1, 5, 8, 10, false, 0}, {0, 0, 3, 24, true, 1}};
  ASSERT_TRUE(s->done());
  for (size_t i = 0; i < records.size(); ++i) {
    SCOPED_TRACE(i);
    const ServeRecord& r = s->records()[i];
    EXPECT_EQ(r.request.id, static_cast<int>(i));
    EXPECT_EQ(r.slot, records[i].slot);
    EXPECT_DOUBLE_EQ(r.queue_s(), records[i].queue);
    EXPECT_DOUBLE_EQ(r.ttft_s(), records[i].ttft);
    EXPECT_DOUBLE_EQ(r.finish_s, records[i].finish);
    EXPECT_EQ(r.tokens, r.request.output);
    EXPECT_EQ(r.has_tpot(), records[i].has_tpot);
    if (r.has_tpot()) EXPECT_DOUBLE_EQ(r.tpot_s(), records[i].tpot);
  }
}

// One slot: the same requests one at a time (gpt_serve's --compare_serial).
TEST(ServeScheduler, OneSlotRunsThemOneAtATime) {
  auto s = ServeScheduler::Create(Fixture(), 1);
  ASSERT_TRUE(s.ok());
  FakeClock clock;
  FixedCostExecutor exec(&clock, 3, 1);
  ASSERT_TRUE(RunServe(&*s, &clock, &exec, 1e9, nullptr).ok());
  const std::vector<std::string> want = {"prefill r0 s0", "decode r0@s0", "decode r0@s0", "free s0",
                                         "prefill r1 s0", "decode r1@s0", "free s0",      "prefill r2 s0",
                                         "free s0",       "prefill r3 s0", "decode r3@s0", "free s0"};
  EXPECT_EQ(exec.log(), want);
  for (const ServeStep& st : s->steps()) EXPECT_EQ(st.batch, 1);
  EXPECT_DOUBLE_EQ(s->records()[2].queue_s(), 9 - 2);  // r2 waits for r0 (3 + 2) and r1 (3 + 1)
}

// A random load on 4 slots: every request gets exactly its tokens; decode batches never exceed
// the slots, rise and fall; steps never overlap; TTFT >= queue >= 0; the decode steps' rows sum
// to the tokens after the first.
TEST(ServeScheduler, InvariantsOverARandomLoad) {
  model::Rng rng(5);
  std::vector<ServeRequest> reqs;
  double t = 0;
  int after_first = 0;
  for (int i = 0; i < 60; ++i) {
    t += -std::log(1 - rng.Uniform01()) * 2.0;
    reqs.push_back({i, t, 1 + static_cast<int>(rng.UniformInt(20)), 1 + static_cast<int>(rng.UniformInt(12))});
    after_first += reqs.back().output - 1;
  }
  auto s = ServeScheduler::Create(reqs, 4);
  ASSERT_TRUE(s.ok());
  FakeClock clock;
  FixedCostExecutor exec(&clock, 1.5, 0.5);
  int calls = 0;
  ASSERT_TRUE(RunServe(&*s, &clock, &exec, 1e9, [&](const ServeProgress& p) {
                ++calls;
                EXPECT_LE(p.running, 4);
                EXPECT_EQ(p.total, 60);
              }).ok());
  EXPECT_EQ(calls, static_cast<int>(s->steps().size()));
  int rows = 0, smallest = 4, largest = 0;
  double end = 0;
  for (const ServeStep& st : s->steps()) {
    EXPECT_GE(st.start_s, end - 1e-12);
    end = st.start_s + st.duration_s;
    if (st.kind != ServeStepKind::kDecode) continue;
    EXPECT_LE(st.batch, 4);
    rows += st.batch;
    smallest = std::min(smallest, st.batch);
    largest = std::max(largest, st.batch);
  }
  EXPECT_EQ(rows, after_first);
  EXPECT_EQ(largest, 4);
  EXPECT_EQ(smallest, 1);
  for (const ServeRecord& r : s->records()) {
    EXPECT_TRUE(r.finished());
    EXPECT_EQ(r.tokens, r.request.output);
    EXPECT_GE(r.queue_s(), 0);
    EXPECT_GE(r.ttft_s(), r.queue_s());
  }
}

TEST(ServeScheduler, DeadlineStopsTheRunKeepingWhatRan) {
  auto s = ServeScheduler::Create(Fixture(), 2);
  ASSERT_TRUE(s.ok());
  FakeClock clock;
  FixedCostExecutor exec(&clock, 3, 1);
  absl::Status st = RunServe(&*s, &clock, &exec, 15, nullptr);
  EXPECT_EQ(st.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(std::string(st.message()).find("3 of 4 requests finished within the limit of 15 s"), std::string::npos)
      << st;
  EXPECT_FALSE(s->done());
  EXPECT_EQ(s->finished(), 3);
}

TEST(ServeScheduler, BadRequestsAndActionsAreRefused) {
  auto has = [](const absl::Status& s, const char* text) {
    return std::string(s.message()).find(text) != std::string::npos;
  };
  EXPECT_TRUE(has(ServeScheduler::Create(Fixture(), 0).status(), "max_batch 0"));
  EXPECT_TRUE(has(ServeScheduler::Create({{0, 0, 1, 1}, {0, 1, 1, 1}}, 1).status(), "request id 0"));
  EXPECT_TRUE(has(ServeScheduler::Create({{0, -1, 1, 1}}, 1).status(), "arrival -1 s"));
  EXPECT_TRUE(has(ServeScheduler::Create({{0, 0, 0, 1}}, 1).status(), "prompt 0, output 1"));
  auto s = ServeScheduler::Create(Fixture(), 2);
  ASSERT_TRUE(s.ok());
  ServeAction wait = s->Next(-1);  // nothing has arrived before 0
  EXPECT_EQ(wait.kind, ServeAction::Kind::kWait);
  EXPECT_DOUBLE_EQ(wait.until_s, 0);
  EXPECT_FALSE(s->Complete(wait, 0, 0).ok());
  ServeAction prefill = s->Next(0);
  ASSERT_EQ(prefill.kind, ServeAction::Kind::kPrefill);
  EXPECT_FALSE(s->Complete(prefill, 1, 0).ok());  // ends before it starts
  ServeAction other = prefill;
  other.request = 1;  // not the first to arrive
  EXPECT_TRUE(has(s->Complete(other, 0, 1).status(), "not what Next said"));
  ASSERT_TRUE(s->Complete(prefill, 0, 1).ok());
  EXPECT_TRUE(has(s->Complete(prefill, 1, 2).status(), "not what Next said"));  // twice
}

}  // namespace
}  // namespace macro
