// OverlappedAllReducer in a one-process MPI world (a singleton: the sum over ranks is the
// buffer itself): every float handed over is all-reduced and scaled exactly once, whatever the
// bucket size and the order of the spans; spans that touch merge.
#include "comm/overlapped_allreduce.h"

#include <cstdlib>
#include <vector>

#include "gtest/gtest.h"

namespace comm {
namespace {

MpiWorld* World() {
  static MpiWorld* world = [] {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    int argc = 0;
    char** argv = nullptr;
    auto w = MpiWorld::Init(&argc, &argv, 60);
    EXPECT_TRUE(w.ok()) << w.status();
    return w.ok() ? *w : nullptr;
  }();
  return world;
}

TEST(MergeSpans, TouchingSpansMergeInOffsetOrder) {
  std::vector<FloatSpan> m = MergeSpans({{30, 10}, {0, 10}, {10, 5}, {50, 0}, {40, 2}});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].offset, 0);
  EXPECT_EQ(m[0].count, 15);
  EXPECT_EQ(m[1].offset, 30);
  EXPECT_EQ(m[1].count, 12);
}

TEST(OverlappedAllReducer, EveryFloatReducedAndScaledOnce) {
  MpiWorld* w = World();
  ASSERT_NE(w, nullptr);
  ASSERT_EQ(w->size(), 1);
  for (const int64_t bucket_bytes : {int64_t{4}, int64_t{100}, int64_t{1} << 30}) {
    SCOPED_TRACE(bucket_bytes);
    auto red = OverlappedAllReducer::Make(w, bucket_bytes);
    ASSERT_TRUE(red.ok()) << red.status();
    std::vector<float> buf(1000, 2.0f);
    for (int step = 1; step <= 2; ++step) {
      std::fill(buf.begin(), buf.end(), 2.0f);
      (*red)->Begin(buf.data(), 0.5f, step);
      // Reverse "layer" order, two tensors stacked over 10 layers, as the model reports them.
      for (int l = 9; l >= 0; --l) (*red)->Ready({{l * 50, 50}, {500 + l * 50, 50}});
      ASSERT_TRUE((*red)->Finish().ok());
      for (size_t i = 0; i < buf.size(); ++i) ASSERT_EQ(buf[i], 1.0f) << i;
      EXPECT_EQ((*red)->floats(), 1000);
      const int want_buckets = bucket_bytes == 4 ? 10 : bucket_bytes == 100 ? 10 : 1;
      EXPECT_EQ((*red)->buckets(), want_buckets);
      EXPECT_GE((*red)->busy_seconds(), 0.0);
    }
  }
}

TEST(OverlappedAllReducer, NothingHandedOverFinishesAtOnce) {
  auto red = OverlappedAllReducer::Make(World(), 1024);
  ASSERT_TRUE(red.ok());
  std::vector<float> buf(10, 3.0f);
  (*red)->Begin(buf.data(), 0.5f, 1);
  ASSERT_TRUE((*red)->Finish().ok());
  EXPECT_EQ(buf[0], 3.0f);
  EXPECT_EQ((*red)->buckets(), 0);
}

TEST(OverlappedAllReducer, BadBucketSizeIsNamed) {
  auto red = OverlappedAllReducer::Make(World(), 2);
  ASSERT_FALSE(red.ok());
  EXPECT_NE(red.status().message().find("bucket size 2 bytes"), std::string::npos) << red.status();
}

}  // namespace
}  // namespace comm
