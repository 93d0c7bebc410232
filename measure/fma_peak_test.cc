// The FMA loop and STREAM: counts, argument errors, and rates that are positive and finite.
#include "measure/fma_peak.h"

#include <cmath>

#include "gtest/gtest.h"
#include "measure/stream.h"

namespace micro {
namespace {

TEST(FmaPeakTest, CountsFlopsOfEveryThread) {
  ASSERT_TRUE(FmaIsaSupported(FmaIsa::kAvx2)) << "the project targets x86-64 machines with AVX2";
  absl::StatusOr<FmaPeakResult> r = RunFmaLoop(FmaIsa::kAvx2, 1000, 2);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->threads, 2);
  EXPECT_EQ(r->flops, 2.0 * 1000 * FmaFlopsPerStep(FmaIsa::kAvx2));
  EXPECT_EQ(FmaFlopsPerStep(FmaIsa::kAvx2), 12 * 8 * 2);
  EXPECT_EQ(FmaFlopsPerStep(FmaIsa::kAvx512), 24 * 16 * 2);
  EXPECT_GT(r->flops_per_s, 0);
  EXPECT_TRUE(std::isfinite(r->checksum));
  EXPECT_NE(r->checksum, 0);
}

TEST(FmaPeakTest, BadArgumentsAreErrors) {
  EXPECT_FALSE(RunFmaLoop(FmaIsa::kAvx2, 0).ok());
  EXPECT_FALSE(RunFmaLoop(FmaIsa::kAvx2, 10, -1).ok());
  EXPECT_FALSE(MeasureFmaPeak(FmaIsa::kAvx2, 0, 1).ok());
  EXPECT_FALSE(MeasureFmaPeak(FmaIsa::kAvx2, 0.01, 0).ok());
  if (!FmaIsaSupported(FmaIsa::kAvx512)) {
    EXPECT_FALSE(RunFmaLoop(FmaIsa::kAvx512, 10).ok());
  }
}

TEST(FmaPeakTest, CalibrationNeverShrinksBelowAMillisecondProbe) {
  absl::StatusOr<int64_t> steps = CalibrateFmaSteps(FmaIsa::kAvx2, 1e-6);
  ASSERT_TRUE(steps.ok()) << steps.status();
  // A 1 us target would be a handful of steps; the floor is 2^30 FLOPs per thread, so thread
  // wake-ups cannot dominate a trial. (How long a run takes is not asserted: parallel tests.)
  EXPECT_GE(*steps, 4096);
  EXPECT_EQ(MinFmaSteps(FmaIsa::kAvx2), (int64_t{1} << 30) / (12 * 8 * 2));
  EXPECT_GE(*steps, MinFmaSteps(FmaIsa::kAvx2));
  EXPECT_FALSE(CalibrateFmaSteps(FmaIsa::kAvx2, 0).ok());
}

TEST(FmaPeakTest, MeasuredPeakIsTheBestTrial) {
  // No speed bound here: under parallel tests on 2 cores a trial can be preempted for many
  // times its length. Speeds are the benchmarks' business; this checks the arithmetic.
  absl::StatusOr<FmaPeakResult> r = MeasureFmaPeak(FmaIsa::kAvx2, 0.005, 3);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->flops_per_s, 0);
  EXPECT_DOUBLE_EQ(r->flops_per_s, r->flops / r->seconds);
  EXPECT_EQ(static_cast<int64_t>(r->flops) % FmaFlopsPerStep(FmaIsa::kAvx2), 0);
}

TEST(StreamTest, MeasuresCopyAndTriad) {
  EXPECT_FALSE(LastMeasuredStream().has_value());  // nothing measured yet in this process
  absl::StatusOr<StreamResult> r = MeasureStream(8 << 20, 2);
  ASSERT_TRUE(r.ok()) << r.status();
  // The latest measurement is noted for the record check (macro/rank_peak.h); a failed one is not.
  std::optional<StreamResult> last = LastMeasuredStream();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->elements, r->elements);
  EXPECT_EQ(last->triad_bytes_per_s, r->triad_bytes_per_s);
  EXPECT_EQ(r->elements, (8 << 20) / 4);
  EXPECT_GT(r->copy_bytes_per_s, 1e8);
  EXPECT_GT(r->triad_bytes_per_s, 1e8);
  EXPECT_FALSE(MeasureStream(100, 2).ok());
  EXPECT_FALSE(MeasureStream(8 << 20, 0).ok());
  EXPECT_EQ(LastMeasuredStream()->copy_bytes_per_s, r->copy_bytes_per_s);
  EXPECT_EQ(StreamArrayBytes(32 << 20), int64_t{128} << 20);
  EXPECT_EQ(StreamArrayBytes(0), int64_t{256} << 20);
}

TEST(StreamTest, KernelsComputeTheirDefinitions) {
  float a[5] = {1, 2, 3, 4, 5}, b[5] = {}, c[5] = {1, 1, 1, 1, 1};
  StreamCopy(b, a, 5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(b[i], a[i]);
  StreamTriad(a, b, c, 0.5f, 5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(a[i], b[i] + 0.5f);
}

}  // namespace
}  // namespace micro
