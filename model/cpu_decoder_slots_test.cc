// The CPU decoder's slots (cpu_decoder.h): requests prefilled into slots at different times and
// stepped together, each at its own position, give the logits of one B=1 decoder per request (to
// fp32 rounding), for GPT-2's family (learned positions) and the Llama family (RoPE per row, a
// cache of 2 K/V heads for 4 query heads); through the matrix-vector products (few rows) and the
// GEMM (10 rows); a freed slot takes a new request that never sees the old one's cache; misuse is
// refused naming the value.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "model/cpu_decoder.h"
#include "model/data/rng.h"
#include "model/decoder_test_util.h"
#include "model/matvec_cpu.h"

namespace model {
namespace {

// A slotted decoder and, per request, its own B=1 decoder fed the same tokens.
class SlotsVsOwnDecoders {
 public:
  SlotsVsOwnDecoders(const char* preset, int slots, int max_prompt, int positions)
      : config_(*GptPreset(preset)), params_(DecoderTestParams(config_, 7)), rng_(11) {
    auto d = CpuDecoder::Create(config_, params_.data(), slots, max_prompt, positions);
    EXPECT_TRUE(d.ok()) << d.status();
    slotted_ = std::move(*d);
    max_prompt_ = max_prompt;
    positions_ = positions;
  }

  // A new request of P prompt tokens into `slot`; compares its first logits.
  void Prefill(int slot, int P) {
    auto d = CpuDecoder::Create(config_, params_.data(), 1, max_prompt_, positions_);
    ASSERT_TRUE(d.ok()) << d.status();
    const std::vector<int32_t> prompt = RandomTokens(P, config_.vocab, &rng_);
    ASSERT_TRUE((*d)->Prefill(prompt, P).ok());
    own_[slot] = std::move(*d);
    ASSERT_TRUE(slotted_->PrefillSlot(slot, prompt, P).ok());
    EXPECT_EQ(slotted_->logit_rows(), 1);
    EXPECT_EQ(slotted_->slot_position(slot), P);
    Compare(0, slot, absl::StrCat("prefill of ", P, " into slot ", slot));
  }

  // One step of the listed slots, a random token each; compares every row.
  void Step(const std::vector<int>& slots) {
    const std::vector<int32_t> tokens = RandomTokens(static_cast<int>(slots.size()), config_.vocab, &rng_);
    for (size_t i = 0; i < slots.size(); ++i) ASSERT_TRUE(own_[slots[i]]->Step({tokens[i]}).ok());
    ASSERT_TRUE(slotted_->StepSlots(tokens, slots).ok());
    ASSERT_EQ(slotted_->logit_rows(), static_cast<int>(slots.size()));
    for (size_t i = 0; i < slots.size(); ++i) {
      EXPECT_EQ(slotted_->slot_position(slots[i]), own_[slots[i]]->position());
      Compare(static_cast<int>(i), slots[i],
              absl::StrCat("row ", i, ": slot ", slots[i], " at position ", own_[slots[i]]->position() - 1));
    }
  }

  void Free(int slot) {
    ASSERT_TRUE(slotted_->FreeSlot(slot).ok());
    EXPECT_EQ(slotted_->slot_position(slot), 0);
    own_.erase(slot);
  }

  double worst() const { return worst_; }
  CpuDecoder* slotted() { return slotted_.get(); }

 private:
  void Compare(int row, int slot, const std::string& what) {
    const float* got = slotted_->logits() + static_cast<size_t>(row) * config_.padded_vocab;
    const float* want = own_[slot]->logits();
    const double err = MaxRelErr(got, want, 1, config_);
    EXPECT_LT(err, 2e-5) << what;
    worst_ = std::max(worst_, err);
    // Something is compared: the logits are not flat.
    EXPECT_GT(*std::max_element(want, want + config_.vocab) - *std::min_element(want, want + config_.vocab),
              1e-3f);
  }

  GptConfig config_;
  std::vector<float> params_;
  Rng rng_;
  std::unique_ptr<CpuDecoder> slotted_;
  std::map<int, std::unique_ptr<CpuDecoder>> own_;
  int max_prompt_ = 0, positions_ = 0;
  double worst_ = 0;
};

class Slots : public ::testing::TestWithParam<const char*> {};

// Requests join and leave at different times; every step's rows are at mixed positions.
TEST_P(Slots, MixedPositionsGiveEachRequestsOwnLogits) {
  SlotsVsOwnDecoders t(GetParam(), 3, 7, 16);
  t.Prefill(1, 5);
  t.Step({1});
  t.Step({1});
  t.Prefill(0, 3);
  t.Step({1, 0});  // positions 7 and 3
  t.Prefill(2, 7);
  t.Step({0, 1, 2});  // positions 4, 8, 7
  t.Step({2, 0, 1});  // any order of slots: row i is slots[i]
  t.Free(1);
  t.Step({0, 2});
  // Slot 1 reused by a shorter prompt: it must not see the first request's 9 positions.
  t.Prefill(1, 2);
  for (int i = 0; i < 4; ++i) t.Step({0, 1, 2});
  EXPECT_EQ(t.slotted()->slots_in_use(), 3);
  std::printf("%s: slots vs own decoders, worst relative error %.3g\n", GetParam(), t.worst());
}

// 10 slots: the steps' Linear layers take the GEMM (over kMatvecMaxRows rows), not the matvec.
TEST_P(Slots, TenSlotsThroughTheGemm) {
  ASSERT_GT(10, kMatvecMaxRows);
  SlotsVsOwnDecoders t(GetParam(), 10, 4, 12);
  std::vector<int> all;
  for (int s = 0; s < 10; ++s) {
    t.Prefill(s, 1 + s % 4);
    all.push_back(s);
  }
  t.Step(all);
  t.Step(all);
  t.Free(4);
  all.erase(all.begin() + 4);
  t.Step(all);
}

INSTANTIATE_TEST_SUITE_P(Presets, Slots, ::testing::Values("test-mini", "llama-tiny"));

TEST(CpuDecoderSlots, GreedyPicksForTheCallsRows) {
  const GptConfig config = *GptPreset("test-tiny");
  const std::vector<float> params = DecoderTestParams(config, 3);
  auto d = CpuDecoder::Create(config, params.data(), 4, 4, 8);
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE((*d)->PrefillSlot(2, {1, 2, 3}, 3).ok());
  std::vector<int32_t> next;
  ASSERT_TRUE((*d)->Greedy(&next).ok());
  EXPECT_EQ(next.size(), 1u);
  ASSERT_TRUE((*d)->PrefillSlot(0, {4}, 1).ok());
  ASSERT_TRUE((*d)->StepSlots({5, 6}, {0, 2}).ok());
  ASSERT_TRUE((*d)->Greedy(&next).ok());
  EXPECT_EQ(next.size(), 2u);
  for (int32_t t : next) EXPECT_TRUE(t >= 0 && t < config.vocab);
}

TEST(CpuDecoderSlots, MisuseIsRefusedNamingTheValue) {
  const GptConfig config = *GptPreset("test-tiny");
  std::vector<float> params(ParamLayout(config).num_params(), 0.01f);
  auto d = CpuDecoder::Create(config, params.data(), 2, 4, 6);
  ASSERT_TRUE(d.ok());
  CpuDecoder& dec = **d;
  auto has = [](const absl::Status& s, const char* text) {
    return std::string(s.message()).find(text) != std::string::npos;
  };
  EXPECT_TRUE(has(dec.PrefillSlot(2, {1}, 1), "slot 2 is out of range; allowed: 0 to 1"));
  EXPECT_TRUE(has(dec.PrefillSlot(-1, {1}, 1), "slot -1 is out of range"));
  EXPECT_TRUE(has(dec.PrefillSlot(0, {1, 2, 3, 4, 5}, 5), "prompt of 5 tokens"));
  EXPECT_TRUE(has(dec.PrefillSlot(0, {1, 60}, 2), "token 60"));
  EXPECT_TRUE(has(dec.StepSlots({1}, {0}), "slot 0 is free"));
  EXPECT_TRUE(has(dec.FreeSlot(1), "slot 1 is free"));
  EXPECT_TRUE(has(dec.FreeSlot(5), "slot 5 is out of range"));
  EXPECT_EQ(dec.slot_position(5), -1);
  ASSERT_TRUE(dec.PrefillSlot(0, {1, 2, 3, 4}, 4).ok());
  EXPECT_TRUE(has(dec.PrefillSlot(0, {1}, 1), "slot 0 is in use (4 positions)"));
  EXPECT_TRUE(has(dec.StepSlots({1, 2}, {0, 0}), "slot 0 is listed twice"));
  EXPECT_TRUE(has(dec.StepSlots({1, 2}, {0}), "2 tokens given for 1 slots"));
  EXPECT_TRUE(has(dec.StepSlots({}, {}), "0 slots given; allowed: 1 to B=2"));
  EXPECT_TRUE(has(dec.StepSlots({1, 2, 3}, {0, 1, 2}), "3 slots given"));
  EXPECT_TRUE(has(dec.StepSlots({64}, {0}), "token 64 at index 0"));
  // Lockstep and slots do not mix.
  EXPECT_TRUE(has(dec.Prefill({1, 2}, 1), "1 slot(s) in use"));
  EXPECT_TRUE(has(dec.Step({1, 2}), "1 slot(s) in use"));
  ASSERT_TRUE(dec.StepSlots({1}, {0}).ok());
  ASSERT_TRUE(dec.StepSlots({1}, {0}).ok());
  absl::Status full = dec.StepSlots({1}, {0});
  EXPECT_EQ(full.code(), absl::StatusCode::kOutOfRange);
  EXPECT_TRUE(has(full, "slot 0 holds 6 of 6 positions"));
  EXPECT_EQ(dec.slot_position(0), 6);  // a refused step changes nothing
  dec.Reset();
  EXPECT_EQ(dec.slots_in_use(), 0);
  ASSERT_TRUE(dec.Prefill({1, 2}, 1).ok());
  EXPECT_TRUE(has(dec.PrefillSlot(1, {1}, 1), "lockstep streams hold 1 positions"));
}

}  // namespace
}  // namespace model
