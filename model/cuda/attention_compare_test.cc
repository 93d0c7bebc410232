// CompareAttentionResults: passes within tolerance, names the tensor and the worst element
// otherwise, treats NaN and infinity as failures, checks sizes.
#include "model/cuda/attention_compare.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace model {
namespace cuda {
namespace {

using ::testing::HasSubstr;

constexpr AttentionShape kShape{2, 5, 3, 4};  // B, T, NH, HS

// Deterministic values in [-1, 1], distinct per element.
AttentionResults Reference() {
  const int64_t n = kShape.B * kShape.T * kShape.C();
  AttentionResults r;
  r.out.resize(n);
  r.dqkv.resize(3 * n);
  for (int64_t i = 0; i < n; ++i) r.out[i] = std::sin(0.37 * i);
  for (int64_t i = 0; i < 3 * n; ++i) r.dqkv[i] = std::cos(0.11 * i);
  return r;
}

// Index of (b, t, part, h, e) in a (B, T, parts, NH, HS) tensor.
int64_t At(int64_t parts, int64_t b, int64_t t, int64_t part, int64_t h, int64_t e) {
  return ((b * kShape.T + t) * parts + part) * kShape.C() + h * kShape.HS + e;
}

TEST(AttentionCompare, IdenticalAndSlightlyDifferentResultsPass) {
  const AttentionResults want = Reference();
  EXPECT_TRUE(CompareAttentionResults(kShape, want, want).ok());
  AttentionResults got = want;
  for (float& x : got.dqkv) x *= 1.01f;  // 1%: bf16-sized noise
  for (float& x : got.out) x += 0.004f;
  EXPECT_TRUE(CompareAttentionResults(kShape, want, got).ok()) << CompareAttentionResults(kShape, want, got);
}

TEST(AttentionCompare, NamesTheTensorAndItsWorstElement) {
  const AttentionResults want = Reference();
  // dk (part 1) of b=1, t=3, h=2, e=1 off by 0.5, and a smaller error elsewhere in dk.
  AttentionResults got = want;
  got.dqkv[At(3, 1, 3, 1, 2, 1)] += 0.5f;
  got.dqkv[At(3, 0, 0, 1, 0, 0)] += 0.2f;
  const absl::Status st = CompareAttentionResults(kShape, want, got);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(st.message());
  EXPECT_THAT(msg, HasSubstr("dk: worst element b=1 t=3 h=2 e=1"));
  EXPECT_THAT(msg, HasSubstr("tolerance 0.05"));
  // The same error in dq (part 0), dv (part 2) and out is named as such.
  for (const auto& [part, name] : {std::pair{0, "dq:"}, std::pair{2, "dv:"}}) {
    AttentionResults g = want;
    g.dqkv[At(3, 0, 4, part, 1, 3)] -= 0.5f;
    EXPECT_THAT(std::string(CompareAttentionResults(kShape, want, g).message()),
                HasSubstr(absl::StrCat(name, " worst element b=0 t=4 h=1 e=3")));
  }
  AttentionResults o = want;
  o.out[At(1, 1, 0, 0, 0, 2)] = 3.0f;
  EXPECT_THAT(std::string(CompareAttentionResults(kShape, want, o).message()),
              HasSubstr("out: worst element b=1 t=0 h=0 e=2: got 3"));
}

TEST(AttentionCompare, NanAndInfinityFail) {
  const AttentionResults want = Reference();
  for (float bad : {NAN, INFINITY}) {
    AttentionResults got = want;
    got.dqkv[At(3, 1, 1, 2, 0, 0)] = bad;
    const absl::Status st = CompareAttentionResults(kShape, want, got);
    ASSERT_FALSE(st.ok());
    EXPECT_THAT(std::string(st.message()), HasSubstr("dv: worst element b=1 t=1 h=0 e=0"));
  }
}

TEST(AttentionCompare, ToleranceIsRelativeToTheLargestReferenceMagnitude) {
  AttentionResults want = Reference();
  for (float& x : want.out) x *= 100.0f;
  AttentionResults got = want;
  got.out[0] += 4.0f;  // 4 of max ~100: within 5%
  EXPECT_TRUE(CompareAttentionResults(kShape, want, got).ok());
  got.out[0] += 2.0f;  // 6 of max ~100
  EXPECT_FALSE(CompareAttentionResults(kShape, want, got).ok());
  EXPECT_TRUE(CompareAttentionResults(kShape, want, got, /*tolerance=*/0.1).ok());
}

TEST(AttentionCompare, WrongSizesAreErrors) {
  const AttentionResults want = Reference();
  AttentionResults got = want;
  got.dqkv.pop_back();
  const absl::Status st = CompareAttentionResults(kShape, want, got);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(st.message()), HasSubstr("got.dqkv has 359 elements; the shape needs 360"));
}

// Grouped-query attention: rows of QKV = C + 2 * NKV * HS, dk and dv with NKV heads each.
TEST(AttentionCompare, GroupedQueryLayoutNamesTheKvHead) {
  constexpr AttentionShape gqa{2, 5, 4, 4, /*NKV=*/2};  // C = 16, QKV = 32
  ASSERT_EQ(gqa.QKV(), 32);
  AttentionResults want;
  want.out.assign(gqa.B * gqa.T * gqa.C(), 0.5f);
  want.dqkv.resize(gqa.B * gqa.T * gqa.QKV());
  for (size_t i = 0; i < want.dqkv.size(); ++i) want.dqkv[i] = std::cos(0.13 * i);
  EXPECT_TRUE(CompareAttentionResults(gqa, want, want).ok());
  // dk's head 1, channel 2 at b=1, t=4; then dv's head 0, channel 3 at b=0, t=2.
  AttentionResults got = want;
  got.dqkv[(1 * gqa.T + 4) * gqa.QKV() + gqa.C() + 1 * gqa.HS + 2] += 0.5f;
  EXPECT_THAT(std::string(CompareAttentionResults(gqa, want, got).message()),
              HasSubstr("dk: worst element b=1 t=4 h=1 e=2"));
  got = want;
  got.dqkv[(0 * gqa.T + 2) * gqa.QKV() + gqa.C() + gqa.KVW() + 3] -= 0.5f;
  EXPECT_THAT(std::string(CompareAttentionResults(gqa, want, got).message()),
              HasSubstr("dv: worst element b=0 t=2 h=0 e=3"));
  // A 3C-sized gradient is the wrong size for this shape.
  got = want;
  got.dqkv.resize(3 * gqa.B * gqa.T * gqa.C());
  EXPECT_THAT(std::string(CompareAttentionResults(gqa, want, got).message()),
              HasSubstr("got.dqkv has 480 elements; the shape needs 320"));
  EXPECT_EQ(gqa.ToString(), "B=2 T=5 NH=4 HS=4 NKV=2");
  // K/V heads that do not divide the query heads are refused, naming the shape.
  constexpr AttentionShape bad{2, 5, 4, 4, 3};
  EXPECT_THAT(std::string(CompareAttentionResults(bad, want, want).message()),
              HasSubstr("NKV must divide NH"));
}

TEST(AttentionCompare, ShapeText) { EXPECT_EQ(kShape.ToString(), "B=2 T=5 NH=3 HS=4"); }

}  // namespace
}  // namespace cuda
}  // namespace model
