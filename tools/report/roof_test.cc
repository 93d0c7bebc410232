// ChooseRoofs and the roofline chart's maths: the ceilings file of this machine or another,
// the run's peaks, points above the roof, and points drawn where their coordinates say.
#include "tools/report/roof.h"

#include <cmath>
#include <regex>

#include "gtest/gtest.h"
#include "tools/report/roofline_chart.h"

namespace report {
namespace {

Case MakeCase(const std::string& name, double flops, double bytes, double peak, double peak_bw,
              const std::string& source) {
  Case c;
  c.name = name;
  c.family = "f";
  c.counters["FLOP/s"] = flops;
  if (bytes > 0) c.counters["bytes/s"] = bytes;
  if (peak > 0) c.counters["peak_FLOP/s"] = peak;
  if (peak_bw > 0) c.counters["peak_bytes/s"] = peak_bw;
  c.label = "peak: " + source;
  return c;
}

RunData RunOn(const std::string& cpu) {
  RunData d;
  d.context = {{"cpu_model", cpu}};
  return d;
}

accounting::Ceilings File(const std::string& machine) {
  accounting::Ceilings c;
  c.machine = machine;
  c.peak_flops["fp32"] = 2.4e11;
  c.bandwidth_bytes_per_s = 3.2e10;
  c.method = "AVX-512 FMA loop";
  c.date = "2026-11-30T00:00:00Z";
  return c;
}

// A run on an AMD EPYC 9R14 whose matmul measured a 2.3e11 FLOP/s peak at start-up, with the
// ceilings file `path` measured on `machine` (2.4e11 FLOP/s).
RoofChoice EpycRunWithCeilingsOf(const std::string& machine, const std::string& path) {
  RunData d = RunOn("AMD EPYC 9R14");
  d.cases.push_back(
      MakeCase("BM_Matmul/cpu/fp32/M:64/K:64/N:64", 1e11, 1e9, 2.3e11, 3e10, "measured at start-up: x"));
  return ChooseRoofs(d, File(machine), path);
}

TEST(ChooseRoofs, CeilingsOfThisMachine) {
  RoofChoice c = EpycRunWithCeilingsOf("AMD EPYC 9R14", "/tmp/c.json");
  ASSERT_EQ(c.roofs.size(), 1u);
  EXPECT_EQ(c.roofs[0].kind, "measured ceilings");
  EXPECT_DOUBLE_EQ(c.roofs[0].peak_flops, 2.4e11);
  EXPECT_DOUBLE_EQ(c.roofs[0].Ridge(), 7.5);
  EXPECT_NE(c.summary.find("measured ceilings of AMD EPYC 9R14"), std::string::npos) << c.summary;
  EXPECT_TRUE(c.problems.empty());
}

// `ceilings --sizes=quick`: its STREAM figure is a cache bandwidth, never drawn as the memory
// slope, and the report says why.
TEST(ChooseRoofs, CacheResidentBandwidthIsNoMemoryRoof) {
  RunData d = RunOn("AMD EPYC 9R14");
  accounting::Ceilings quick = File("AMD EPYC 9R14");
  quick.bandwidth_cache_resident = true;
  RoofChoice c = ChooseRoofs(d, quick, "/tmp/quick.json");
  ASSERT_EQ(c.roofs.size(), 1u);
  EXPECT_EQ(c.roofs[0].bandwidth, 0);
  EXPECT_NE(c.summary.find("cache-resident, not drawn as a memory roof"), std::string::npos) << c.summary;
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_NE(c.problems[0].find("cache-sized arrays"), std::string::npos) << c.problems[0];
}

TEST(ChooseRoofs, CeilingsOfAnotherMachineAreNotUsed) {
  RoofChoice c = EpycRunWithCeilingsOf("Intel Xeon Platinum 8480", "/tmp/other.json");
  ASSERT_EQ(c.roofs.size(), 1u);
  EXPECT_EQ(c.roofs[0].kind, "measured at start-up");
  EXPECT_DOUBLE_EQ(c.roofs[0].peak_flops, 2.3e11);
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_NE(c.problems[0].find("/tmp/other.json was measured on another machine ('Intel Xeon Platinum 8480'"),
            std::string::npos)
      << c.problems[0];
  EXPECT_NE(c.problems[0].find("AMD EPYC 9R14"), std::string::npos);
}

TEST(ChooseRoofs, RunPeaksHighestPerDtypeAndKinds) {
  RunData d = RunOn("H100");
  d.cases.push_back(MakeCase("BM_Matmul/cuda/bf16/M:64/K:64/N:64", 1e14, 1e12, 9.89e14, 3.35e12,
                             "datasheet: NVIDIA H100 SXM5 bf16"));
  d.cases.push_back(MakeCase("BM_Matmul/cuda/fp32/M:64/K:64/N:64", 1e13, 1e12, 6.7e13, 3.35e12,
                             "datasheet: NVIDIA H100 SXM5 fp32"));
  d.cases.push_back(
      MakeCase("BM_Elementwise/cuda/gelu/N:64", 1e11, 1e12, 6.0e13, 3.35e12, "datasheet: other"));
  RoofChoice c = ChooseRoofs(d, std::nullopt, "");
  ASSERT_EQ(c.roofs.size(), 2u);        // bf16, and fp32 (the dtype-less elementwise peak joins it)
  EXPECT_EQ(c.roofs[0].dtype, "bf16");  // highest first
  EXPECT_EQ(c.roofs[0].kind, "datasheet");
  EXPECT_EQ(RoofFor(c, "BM_Matmul/cuda/fp32/M:1/K:1/N:1")->dtype, "fp32");
  EXPECT_EQ(RoofFor(c, "BM_Other/x")->dtype, "bf16");  // no dtype: the highest roof
  EXPECT_DOUBLE_EQ(c.roofs[1].peak_flops, 6.7e13);
  EXPECT_EQ(PeakKind("declared: 2 cores x 8 lanes"), "declared (cores x lanes x clock)");
  EXPECT_EQ(PeakKind("flag: --peak_flops"), "given by a flag");
  EXPECT_EQ(PeakKind("something"), "reported by the run");
}

// Roofs without a ceilings file for a run of two cases measured at start-up: a matmul at
// 2.3e11 FLOP/s and 3e10 bytes/s, and `other` (doing `flops` FLOP/s) at 2.2e11 and 3.1e10.
RoofChoice MatmulAnd(const std::string& other, double flops) {
  RunData d = RunOn("cpu");
  d.cases.push_back(
      MakeCase("BM_Matmul/cpu/fp32/M:64/K:64/N:64", 1e11, 1e9, 2.3e11, 3e10, "measured at start-up: a"));
  d.cases.push_back(MakeCase(other, flops, 1e9, 2.2e11, 3.1e10, "measured at start-up: b"));
  return ChooseRoofs(d, std::nullopt, "");
}

TEST(ChooseRoofs, DifferentMeasuredPeaksSayso) {
  RoofChoice c = MatmulAnd("BM_Matmul/cpu/fp32/M:128/K:128/N:128", 1e11);
  ASSERT_EQ(c.roofs.size(), 1u);
  EXPECT_DOUBLE_EQ(c.roofs[0].peak_flops, 2.3e11);
  EXPECT_DOUBLE_EQ(c.roofs[0].bandwidth, 3.1e10);
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_NE(c.problems[0].find("2 different fp32 peaks"), std::string::npos) << c.problems[0];
}

TEST(ChooseRoofs, DtypelessCasesJoinTheFp32Roof) {
  RoofChoice c = MatmulAnd("BM_Elementwise/cpu/gelu/N:64", 1e9);
  ASSERT_EQ(c.roofs.size(), 1u);
  EXPECT_EQ(c.roofs[0].dtype, "fp32");
  EXPECT_DOUBLE_EQ(c.roofs[0].peak_flops, 2.3e11);
  EXPECT_DOUBLE_EQ(c.roofs[0].bandwidth, 3.1e10);
  EXPECT_EQ(RoofFor(c, "BM_Elementwise/cpu/gelu/N:64")->dtype, "fp32");
}

TEST(ChooseRoofs, NoPeakAnywhere) {
  RunData d = RunOn("cpu");
  d.cases.push_back(MakeCase("BM_A/x", 1e9, 1e9, 0, 0, ""));
  RoofChoice c = ChooseRoofs(d, std::nullopt, "");
  EXPECT_TRUE(c.roofs.empty());
  EXPECT_NE(c.summary.find("No roof"), std::string::npos);
}

TEST(Attainable, MinOfPeakAndSlope) {
  Roof r;
  r.peak_flops = 2.4e11;
  r.bandwidth = 3.2e10;  // ridge 7.5
  EXPECT_DOUBLE_EQ(Attainable(r, 1), 3.2e10);
  EXPECT_DOUBLE_EQ(Attainable(r, 7.5), 2.4e11);
  EXPECT_DOUBLE_EQ(Attainable(r, 100), 2.4e11);
  r.bandwidth = 0;
  EXPECT_DOUBLE_EQ(Attainable(r, 1), 2.4e11);
}

TEST(RooflineChart, PointsWhereTheirCoordinatesSayAndAboveRoofFlagged) {
  RunData d = RunOn("AMD EPYC 9R14");
  // Memory-bound at I = 0.25: roof 8 GFLOP/s; this point is at 6 GFLOP/s (under it).
  d.cases.push_back(
      MakeCase("BM_Elementwise/cpu/add/N:1024", 6e9, 2.4e10, 2.4e11, 3.2e10, "measured at start-up: x"));
  // Compute-bound at I = 100: roof 240 GFLOP/s; 300 GFLOP/s is 25% above it.
  d.cases.push_back(MakeCase("BM_Matmul/cpu/fp32/M:4096/K:4096/N:4096", 3e11, 3e9, 2.4e11, 3.2e10,
                             "measured at start-up: x"));
  // FLOP/s without bytes: a marker, not a point.
  d.cases.push_back(
      MakeCase("BM_GptStep/gpt2/cpu/fp32/B:4/T:64", 1.4e11, 0, 2.4e11, 0, "measured at start-up: x"));
  d.cases.back().counters.erase("bytes/s");
  RoofChoice roofs = ChooseRoofs(d, std::nullopt, "");
  RooflineChart chart = DrawRoofline(d, roofs, {}, "AMD EPYC 9R14");
  ASSERT_EQ(chart.points.size(), 2u);

  // Read the plot rectangle and domains the chart declares, then check each point's pixels
  // with the log formula computed here.
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(chart.svg, m, std::regex("data-plot=\"([0-9.]+) ([0-9.]+) ([0-9.]+) ([0-9.]+)\"")));
  const double px = std::stod(m[1]), py = std::stod(m[2]), pw = std::stod(m[3]), ph = std::stod(m[4]);
  ASSERT_TRUE(std::regex_search(chart.svg, m, std::regex("data-x-domain=\"([0-9.e+-]+) ([0-9.e+-]+)\"")));
  const double x0 = std::stod(m[1]), x1 = std::stod(m[2]);
  ASSERT_TRUE(std::regex_search(chart.svg, m, std::regex("data-y-domain=\"([0-9.e+-]+) ([0-9.e+-]+)\"")));
  const double y0 = std::stod(m[1]), y1 = std::stod(m[2]);
  for (const RooflinePoint& p : chart.points) {
    const double want_x = px + pw * std::log10(p.intensity / x0) / std::log10(x1 / x0);
    const double want_y = py + ph - ph * std::log10(p.flops / y0) / std::log10(y1 / y0);
    EXPECT_NEAR(p.px, want_x, 0.01) << p.case_name;
    EXPECT_NEAR(p.py, want_y, 0.01) << p.case_name;
    EXPECT_GE(p.intensity, x0);
    EXPECT_LE(p.intensity, x1);
    EXPECT_GE(p.flops, y0);
    EXPECT_LE(p.flops, y1);
  }
  const RooflinePoint* mm = nullptr;
  const RooflinePoint* ew = nullptr;
  for (const RooflinePoint& p : chart.points)
    (p.case_name.find("Matmul") != std::string::npos ? mm : ew) = &p;
  ASSERT_TRUE(mm && ew);
  EXPECT_TRUE(mm->above_roof);
  EXPECT_DOUBLE_EQ(mm->attainable, 2.4e11);
  EXPECT_FALSE(ew->above_roof);
  EXPECT_DOUBLE_EQ(ew->attainable, 8e9);
  EXPECT_NE(chart.svg.find("25% above the roof: counting error?"), std::string::npos);
  EXPECT_NE(chart.svg.find("gpt2 B:4 T:64: 140 GFLOP/s"),
            std::string::npos);  // legend of FLOP/s without bytes
  ASSERT_FALSE(chart.notes.empty());
  EXPECT_NE(chart.notes[0].find("25% above the roof"), std::string::npos) << chart.notes[0];
  EXPECT_NE(chart.svg.find("ridge 7.5 FLOP/B"), std::string::npos);
  EXPECT_NE(chart.svg.find("measured at start-up"), std::string::npos);  // the chart says which peak
}

}  // namespace
}  // namespace report
