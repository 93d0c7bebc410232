// The roof each point is held to (memory_roof.h, point_roof.h): with a ceilings file of this
// machine (its kind, and the level its working set fits), with only the case's roof_bytes/s,
// with neither (the single slope); a case without traffic counters stays on the single slope;
// the roofs drawn from a file or from the counters; a file of another machine or a cache-sized
// one.
#include "tools/report/memory_roof.h"

#include "gtest/gtest.h"
#include "tools/report/point_roof.h"
#include "tools/report/roof.h"

namespace report {
namespace {

using accounting::TrafficKind;

constexpr double kPeak = 2.4e11, kSingle = 3.2e10;

// A case of `name` at `bytes_per_s` and intensity `intensity`, with traffic counters when
// read + write > 0, its roof_bytes/s when `roof` > 0 and its working set when `ws` > 0.
Case Elementwise(const std::string& name, double intensity, double bytes_per_s, double read, double write,
                 bool in_place, double roof, double ws) {
  Case c;
  c.name = name;
  c.family = "elementwise";
  c.counters["FLOP/s"] = intensity * bytes_per_s;
  c.counters["bytes/s"] = bytes_per_s;
  c.counters["intensity"] = intensity;
  c.counters["peak_FLOP/s"] = kPeak;
  c.counters["peak_bytes/s"] = kSingle;
  c.label = "peak: measured at start-up: test";
  if (read + write > 0) {
    c.counters["traffic_read_bytes"] = read;
    c.counters["traffic_write_bytes"] = write;
    c.counters["traffic_in_place"] = in_place ? 1 : 0;
    c.counters["traffic_streaming_stores"] = 0;
  }
  if (roof > 0) c.counters["roof_bytes/s"] = roof;
  if (ws > 0) c.counters["working_set_bytes"] = ws;
  return c;
}

// AdamW on n elements (4 reads, 3 writes of 4 bytes; 16 FLOPs an element) at 36 GB/s.
Case AdamW(double n, double roof, double ws) {
  return Elementwise("BM_Elementwise/cpu/adamw/N:1", 16.0 / 28, 3.6e10, 16 * n, 12 * n, true, roof, ws);
}

// The fixture's machine (testdata/memory_roofs_ceilings.json, in short).
accounting::Ceilings File(const std::string& machine) {
  accounting::Ceilings c;
  c.machine = machine;
  c.peak_flops["fp32"] = kPeak;
  c.bandwidth_bytes_per_s = kSingle;
  c.memory.dram_bytes_per_s = {
      {"read", 4e10}, {"write_nt", 2e10}, {"copy", 3e10}, {"triad", 3.3e10}, {"in_place", 3.8e10}};
  c.memory.cache_levels = {{"L1", 49152, {{"read", 1.2e12}, {"copy", 8e11}, {"in_place", 1e12}}},
                           {"L2", 1048576, {{"read", 2.1e11}, {"copy", 1.5e11}, {"in_place", 1.8e11}}},
                           {"L3", 33554432, {{"read", 1e11}, {"copy", 7e10}, {"in_place", 8.5e10}}}};
  return c;
}

RunData RunOf(std::vector<Case> cases) {
  RunData d;
  d.context = {{"cpu_model", "Test CPU 9000"}};
  d.cases = std::move(cases);
  return d;
}

TEST(TrafficOf, FromTheCountersOrNone) {
  auto t = TrafficOf(AdamW(1024, 0, 65536));
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->read_bytes, 16 * 1024);
  EXPECT_DOUBLE_EQ(t->write_bytes, 12 * 1024);
  EXPECT_TRUE(t->in_place);
  EXPECT_FALSE(t->streaming_stores);
  EXPECT_DOUBLE_EQ(t->working_set_bytes, 65536);
  EXPECT_EQ(accounting::KindOf(*t), TrafficKind::kInPlace);
  // A matmul: no traffic_* counter, no traffic.
  EXPECT_FALSE(TrafficOf(Elementwise("BM_Matmul/cpu/fp32/M:1/K:1/N:1", 100, 2e9, 0, 0, false, 0, 0)));
}

// With a ceilings file of this machine: the roof of the case's kind at the level holding its
// working set (DRAM when none does, or when it says none); the point's attainable is
// min(peak, I x that roof).
TEST(PointRoof, WithAFileTheKindAndTheLevelOfItsWorkingSet) {
  const double n = 1 << 24;
  const std::vector<std::pair<double, std::string>> levels = {
      {32768, "L1"}, {786432, "L2"}, {20e6, "L3"}, {4 * 4 * n, "DRAM"}, {0, "DRAM"}};
  for (const auto& [ws, level] : levels) {
    SCOPED_TRACE(ws);
    RunData d = RunOf({AdamW(n, 3.8e10, ws)});
    RoofChoice roofs = ChooseRoofs(d, File("Test CPU 9000"), "/tmp/c.json");
    auto p = PointRoofFor(roofs, d.cases[0], 16.0 / 28);
    ASSERT_TRUE(p.has_value());
    ASSERT_TRUE(p->memory.has_value());
    EXPECT_EQ(p->memory->kind, TrafficKind::kInPlace);
    EXPECT_EQ(p->memory->level, level);
    const double bw = level == "L1" ? 1e12 : level == "L2" ? 1.8e11 : level == "L3" ? 8.5e10 : 3.8e10;
    EXPECT_DOUBLE_EQ(p->bytes_per_s, bw);
    EXPECT_DOUBLE_EQ(p->attainable, std::min(kPeak, 16.0 / 28 * bw));
  }
  // At 36 GB/s the big AdamW is above the copy roof (30 GB/s) and the single slope (32), and
  // 94.7% of its in_place roof.
  RunData d = RunOf({AdamW(n, 0, 4 * 4 * n)});
  auto p = PointRoofFor(ChooseRoofs(d, File("Test CPU 9000"), "/tmp/c.json"), d.cases[0], 16.0 / 28);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->MemoryLabel(), "in_place DRAM 38.0 GB/s");
  EXPECT_NEAR(100 * 3.6e10 * 16 / 28 / p->attainable, 94.74, 0.01);
  EXPECT_FALSE(p->compute_bound());
}

// Without a file: the case's own roof_bytes/s, its kind from its counters, level DRAM.
TEST(PointRoof, WithOnlyTheCountersItsRoofBytesAtDram) {
  RunData d = RunOf({AdamW(1 << 24, 3.8e10, 32768),
                     Elementwise("BM_Elementwise/cpu/add/N:1", 1.0 / 12, 3e10, 8, 4, false, 3.3e10, 0)});
  RoofChoice roofs = ChooseRoofs(d, std::nullopt, "");
  for (const Case& c : d.cases) {
    auto p = PointRoofFor(roofs, c, *c.Intensity());
    ASSERT_TRUE(p && p->memory) << c.name;
    EXPECT_EQ(p->memory->level, "DRAM") << c.name;  // the counter names no level, whatever the working set
  }
  EXPECT_EQ(PointRoofFor(roofs, d.cases[0], 0.5)->MemoryLabel(), "in_place DRAM 38.0 GB/s");
  EXPECT_EQ(PointRoofFor(roofs, d.cases[1], 0.5)->MemoryLabel(), "triad DRAM 33.0 GB/s");
  ASSERT_EQ(roofs.memory.slopes.size(), 2u);  // triad, in_place: one per kind and bandwidth
  EXPECT_EQ(roofs.memory.slopes[0].kind, TrafficKind::kTriad);
  EXPECT_EQ(roofs.memory.slopes[1].Label(), "in_place DRAM 38.0 GB/s");
  EXPECT_NE(roofs.memory.summary.find("From the cases' roof_bytes/s"), std::string::npos)
      << roofs.memory.summary;
}

// Neither a file nor roof_bytes/s: the single slope, as a case without traffic counters, and a
// problem line names the case.
TEST(PointRoof, WithNeitherTheSingleSlope) {
  RunData d = RunOf({AdamW(1 << 24, 0, 0)});
  RoofChoice roofs = ChooseRoofs(d, std::nullopt, "");
  auto p = PointRoofFor(roofs, d.cases[0], 16.0 / 28);
  ASSERT_TRUE(p.has_value());
  EXPECT_FALSE(p->memory.has_value());
  EXPECT_DOUBLE_EQ(p->bytes_per_s, kSingle);
  EXPECT_EQ(p->MemoryLabel(), "single slope 32 GB/s");
  EXPECT_TRUE(roofs.memory.slopes.empty());
  ASSERT_FALSE(roofs.problems.empty());
  EXPECT_NE(roofs.problems.back().find("count their traffic but have no roof of their kind"),
            std::string::npos)
      << roofs.problems.back();
  EXPECT_NE(roofs.problems.back().find("BM_Elementwise/cpu/adamw/N:1"), std::string::npos);
}

TEST(PointRoof, NoTrafficCountersStayOnTheSingleSlope) {
  Case mm = Elementwise("BM_Matmul/cpu/fp32/M:64/K:64/N:64", 4, 2e10, 0, 0, false, 0, 0);
  RunData d = RunOf({mm});
  auto p = PointRoofFor(ChooseRoofs(d, File("Test CPU 9000"), "/tmp/c.json"), mm, 4);
  ASSERT_TRUE(p.has_value());
  EXPECT_FALSE(p->memory.has_value());
  EXPECT_DOUBLE_EQ(p->attainable, 4 * kSingle);
}

// A file of another machine gives no roofs; the counters do.
TEST(ChooseMemoryRoofs, AnotherMachinesFileIsNotUsed) {
  RunData d = RunOf({AdamW(1 << 24, 3.7e10, 32768)});
  RoofChoice roofs = ChooseRoofs(d, File("Other CPU"), "/tmp/other.json");
  EXPECT_TRUE(roofs.memory.file.empty());
  auto p = PointRoofFor(roofs, d.cases[0], 0.5);
  ASSERT_TRUE(p && p->memory);
  EXPECT_EQ(p->memory->level, "DRAM");
  EXPECT_DOUBLE_EQ(p->bytes_per_s, 3.7e10);
}

// The file's roofs drawn: one per DRAM kind in kind order, then each cache level at its fastest
// kind; the summary says what a kind is and whence.
TEST(ChooseMemoryRoofs, TheFilesSlopes) {
  RunData d = RunOf({AdamW(1 << 24, 3.8e10, 0)});
  RoofChoice roofs = ChooseRoofs(d, File("Test CPU 9000"), "/tmp/c.json");
  std::vector<std::string> labels;
  for (const MemorySlope& s : roofs.memory.slopes) labels.push_back(s.Label());
  EXPECT_EQ(labels, (std::vector<std::string>{"read DRAM 40.0 GB/s", "write_nt DRAM 20.0 GB/s",
                                              "copy DRAM 30.0 GB/s", "triad DRAM 33.0 GB/s",
                                              "in_place DRAM 38.0 GB/s", "L1 (read) 1200.0 GB/s",
                                              "L2 (read) 210.0 GB/s", "L3 (read) 100.0 GB/s"}));
  EXPECT_NE(roofs.memory.summary.find("Memory roofs per traffic kind and cache level"), std::string::npos)
      << roofs.memory.summary;
  EXPECT_NE(roofs.memory.summary.find("From /tmp/c.json"), std::string::npos);
  EXPECT_NE(roofs.memory.summary.find("in_place: rewrites what it just read"), std::string::npos);
  EXPECT_TRUE(roofs.problems.empty()) << roofs.problems[0];
}

// `ceilings --sizes=quick`: its per-kind "DRAM" roofs were measured on cache-sized arrays, so
// only its cache levels count; a DRAM-sized case falls back to its own roof_bytes/s.
TEST(ChooseMemoryRoofs, CacheResidentFileKeepsOnlyItsLevels) {
  accounting::Ceilings quick = File("Test CPU 9000");
  quick.bandwidth_cache_resident = true;
  RunData d = RunOf({AdamW(1 << 24, 3.7e10, 1 << 28), AdamW(1024, 3.7e10, 32768)});
  RoofChoice roofs = ChooseRoofs(d, quick, "/tmp/quick.json");
  EXPECT_TRUE(roofs.memory.file.dram_bytes_per_s.empty());
  EXPECT_EQ(roofs.memory.slopes.size(), 3u);
  EXPECT_DOUBLE_EQ(PointRoofFor(roofs, d.cases[0], 0.5)->bytes_per_s, 3.7e10);
  EXPECT_EQ(PointRoofFor(roofs, d.cases[1], 0.5)->memory->level, "L1");
  bool said = false;
  for (const std::string& p : roofs.problems)
    said |= p.find("only its cache levels are used") != std::string::npos;
  EXPECT_TRUE(said);
}

// Binaries that measured different roofs of one kind: each is drawn, and a problem says so.
TEST(ChooseMemoryRoofs, OneKindHeldToTwoRoofs) {
  Case a = AdamW(1 << 24, 3.8e10, 0), b = AdamW(1 << 22, 3.5e10, 0);
  b.name = "BM_Elementwise/cpu/adamw/N:2";
  RoofChoice roofs = ChooseRoofs(RunOf({a, b}), std::nullopt, "");
  ASSERT_EQ(roofs.memory.slopes.size(), 2u);
  ASSERT_EQ(roofs.problems.size(), 1u);
  EXPECT_NE(roofs.problems[0].find("the in_place cases held themselves to 2 different roofs"),
            std::string::npos)
      << roofs.problems[0];
}

}  // namespace
}  // namespace report
