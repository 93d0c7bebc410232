#include "accounting/memory_roofs.h"

#include "gtest/gtest.h"

namespace accounting {
namespace {

TEST(TrafficKind, NamesRoundTrip) {
  for (TrafficKind k : kAllTrafficKinds) {
    ASSERT_TRUE(ParseTrafficKind(TrafficKindName(k)).has_value());
    EXPECT_EQ(*ParseTrafficKind(TrafficKindName(k)), k);
  }
  EXPECT_FALSE(ParseTrafficKind("stream").has_value());
  EXPECT_EQ(AllowedTrafficKindNames(), "read, write_nt, copy, triad, in_place");
}

TEST(TrafficKind, WriteAllocateMovesMoreThanCounted) {
  // copy: 8 counted, 12 moved; triad: 12 counted, 16 moved; the rest move what they count.
  EXPECT_DOUBLE_EQ(MovedPerCounted(TrafficKind::kCopy) * KernelCountedBytesPerElement(TrafficKind::kCopy), 12);
  EXPECT_DOUBLE_EQ(MovedPerCounted(TrafficKind::kTriad) * KernelCountedBytesPerElement(TrafficKind::kTriad), 16);
  EXPECT_DOUBLE_EQ(MovedPerCounted(TrafficKind::kInPlace), 1);
  EXPECT_DOUBLE_EQ(MovedPerCounted(TrafficKind::kRead), 1);
  EXPECT_DOUBLE_EQ(MovedPerCounted(TrafficKind::kWriteNt), 1);
  EXPECT_DOUBLE_EQ(KernelCountedBytesPerElement(TrafficKind::kInPlace), 20);
}

TEST(KindOf, TheProjectsOps) {
  const double n = 1 << 20;
  // scale/gelu/softmax: 1 read, 1 write; layernorm adds small w, b reads.
  EXPECT_EQ(KindOf({4 * n, 4 * n}), TrafficKind::kCopy);
  EXPECT_EQ(KindOf({4 * n + 6144, 4 * n + 8192}), TrafficKind::kCopy);
  // add/triad: 2 reads, 1 write.
  EXPECT_EQ(KindOf({8 * n, 4 * n}), TrafficKind::kTriad);
  // adamw: 4 reads, 3 writes, in place.
  OpTraffic adamw{16 * n, 12 * n};
  adamw.in_place = true;
  EXPECT_EQ(KindOf(adamw), TrafficKind::kInPlace);
  // decode's weights: reads only.
  EXPECT_EQ(KindOf({4 * n, 0}), TrafficKind::kRead);
  OpTraffic nt{0, 4 * n};
  nt.streaming_stores = true;
  EXPECT_EQ(KindOf(nt), TrafficKind::kWriteNt);
}

MemoryRoofs SomeRoofs() {
  MemoryRoofs m;
  m.dram_bytes_per_s = {{"read", 40e9}, {"copy", 30e9}, {"in_place", 38e9}};
  m.cache_levels.push_back({"L1", 64e3, {{"read", 900e9}, {"copy", 600e9}}});
  m.cache_levels.push_back({"L2", 1e6, {{"read", 300e9}}});
  return m;
}

TEST(RoofForTraffic, PicksTheSmallestLevelHoldingTheWorkingSet) {
  const MemoryRoofs m = SomeRoofs();
  OpTraffic t{4e3, 4e3};
  t.working_set_bytes = 8e3;
  std::optional<HeldRoof> r = RoofForTraffic(m, t);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->level, "L1");
  EXPECT_EQ(r->kind, TrafficKind::kCopy);
  EXPECT_DOUBLE_EQ(r->bytes_per_s, 600e9);
  EXPECT_EQ(r->Label(), "copy L1 600.0 GB/s");
  // Over L1, and L2 has no copy figure: DRAM's copy roof.
  t.working_set_bytes = 500e3;
  r = RoofForTraffic(m, t);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->level, "DRAM");
  EXPECT_DOUBLE_EQ(r->bytes_per_s, 30e9);
  // A read in L2.
  OpTraffic read{4e5, 0};
  read.working_set_bytes = 4e5;
  r = RoofForTraffic(m, read);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->level, "L2");
  // Unknown working set: DRAM.
  read.working_set_bytes = 0;
  EXPECT_EQ(RoofForTraffic(m, read)->level, "DRAM");
}

TEST(RoofForTraffic, NoFigureForTheKindIsNone) {
  OpTraffic triad{8e9, 4e9};
  EXPECT_FALSE(RoofForTraffic(SomeRoofs(), triad).has_value());
  EXPECT_FALSE(RoofForTraffic(MemoryRoofs{}, triad).has_value());
}

}  // namespace
}  // namespace accounting
