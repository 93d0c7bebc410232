// PeakForRank: WHICH peak a run divides by, for every source of the figure (measured with the
// run's own threads, a whole-machine ceilings file, the datasheet / declared CPU peak,
// --peak_flops) on the CPU and on a GPU; and ChooseSourcePeak's origin for each flag.
#include "macro/rank_peak.h"

#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/machine_key.h"
#include "harness/peak_record.h"
#include "macro/step_options.h"
#include "model/threads.h"

namespace macro {
namespace {

SourcePeak Source(double flops, PeakOrigin origin, int measured_threads, const std::string& source) {
  SourcePeak s;
  s.peak.flops_per_s = flops;
  s.peak.source = source;
  s.origin = origin;
  s.measured_threads = measured_threads;
  return s;
}

RunDevice Cpu(int threads, int cores) { return RunDevice{"cpu", threads, cores}; }

RunDevice Gpu() { return RunDevice{"cuda"}; }

// PeakForRank's answer `p` is a peak of `flops` FLOP/s (to 4 ULPs, as EXPECT_DOUBLE_EQ) by `rule`.
testing::AssertionResult IsPeak(const absl::StatusOr<RankPeak>& p, PeakRule rule, double flops) {
  if (!p.ok()) return testing::AssertionFailure() << p.status();
  if (p->rule != rule) {
    return testing::AssertionFailure() << "rule " << static_cast<int>(p->rule) << ", want "
                                       << static_cast<int>(rule) << " (" << p->rule_text << ")";
  }
  if (!testing::Value(p->peak.flops_per_s, testing::DoubleEq(flops))) {
    return testing::AssertionFailure() << "peak " << p->peak.flops_per_s << " FLOP/s, want " << flops;
  }
  return testing::AssertionSuccess();
}

// ddp_step, 2 ranks x 1 thread on 2 cores: each rank measured 255.2 GFLOP/s on its own thread.
// That is its device's peak: used as is (the bug scaled it by 1/2 again, doubling per-rank MFU).
TEST(PeakForRankTest, MeasuredWithTheRanksOwnThreadsIsUsedAsIs) {
  auto p = PeakForRank(Source(255.2e9, PeakOrigin::kMeasuredAtStartup, 1, "measured at start-up: x1 threads"),
                       Cpu(1, 2));
  ASSERT_TRUE(IsPeak(p, PeakRule::kAsIs, 255.2e9));
  EXPECT_DOUBLE_EQ(p->scale, 1.0);
  EXPECT_TRUE(absl::StartsWith(p->peak.source, "measured at start-up: x1 threads; used as is"))
      << p->peak.source;
  EXPECT_TRUE(absl::StrContains(p->rule_text, "this run's own 1 thread")) << p->rule_text;

  // The same on a bigger machine: 4 ranks x 8 threads on 32 cores, each measured with 8.
  p = PeakForRank(Source(1.0e12, PeakOrigin::kMeasuredAtStartup, 8, "m"), Cpu(8, 32));
  ASSERT_TRUE(IsPeak(p, PeakRule::kAsIs, 1.0e12));

  // gpt_step on every core: measured with all of them, used as is.
  p = PeakForRank(Source(5.0e11, PeakOrigin::kMeasuredAtStartup, 2, "m"), Cpu(2, 2));
  ASSERT_TRUE(IsPeak(p, PeakRule::kAsIs, 5.0e11));
}

// A --ceilings file measured with every core (its method says "FMA loop on 2 threads"): a rank
// with 1 of the 2 cores gets half; a run on every core gets all of it.
TEST(PeakForRankTest, WholeMachineCeilingsFileIsScaledToTheRanksShare) {
  const SourcePeak file = Source(5.0e11, PeakOrigin::kCeilingsFile, 2, "measured: /tmp/c.json");
  auto p = PeakForRank(file, Cpu(1, 2));
  ASSERT_TRUE(IsPeak(p, PeakRule::kScaledFromMeasured, 2.5e11));
  EXPECT_DOUBLE_EQ(p->scale, 0.5);
  EXPECT_TRUE(absl::StrContains(p->peak.source, "x 1/2: --ceilings file with 2 threads")) << p->peak.source;

  p = PeakForRank(file, Cpu(2, 2));
  ASSERT_TRUE(IsPeak(p, PeakRule::kAsIs, 5.0e11));

  // A file measured with 1 thread, used by a run of 4 threads on 8 cores: x 4.
  p = PeakForRank(Source(2.0e11, PeakOrigin::kCeilingsFile, 1, "measured"), Cpu(4, 8));
  ASSERT_TRUE(IsPeak(p, PeakRule::kScaledFromMeasured, 8.0e11));

  // A file that does not say its threads is taken as the whole machine's: x threads / cores.
  p = PeakForRank(Source(6.0e11, PeakOrigin::kCeilingsFile, 0, "measured (hand-written)"), Cpu(1, 3));
  ASSERT_TRUE(IsPeak(p, PeakRule::kScaledFromWholeMachine, 2.0e11));
  EXPECT_TRUE(absl::StrContains(p->rule_text, "x 1/3 cores: a whole-machine figure (--ceilings file)"))
      << p->rule_text;
}

// The CPU's declared peak (cores x lanes x units x clock) covers every core: scaled.
TEST(PeakForRankTest, DeclaredCpuPeakIsScaledToTheRanksShare) {
  const SourcePeak declared = Source(4.0e11, PeakOrigin::kDatasheet, 0, "declared: 2 cores x 16 lanes");
  auto p = PeakForRank(declared, Cpu(1, 2));
  ASSERT_TRUE(IsPeak(p, PeakRule::kScaledFromWholeMachine, 2.0e11));
  p = PeakForRank(declared, Cpu(2, 2));
  ASSERT_TRUE(IsPeak(p, PeakRule::kAsIs, 4.0e11));
  // More threads than cores: a run cannot use more than the whole machine.
  p = PeakForRank(declared, Cpu(4, 2));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_DOUBLE_EQ(p->peak.flops_per_s, 4.0e11);
}

// A GPU's datasheet figure is one device's, and each rank has a device: used as is.
TEST(PeakForRankTest, GpuDatasheetIsUsedAsIs) {
  auto p =
      PeakForRank(Source(989.5e12, PeakOrigin::kDatasheet, 0, "datasheet: NVIDIA H200 bf16 dense"), Gpu());
  ASSERT_TRUE(IsPeak(p, PeakRule::kAsIs, 989.5e12));
  EXPECT_TRUE(absl::StrContains(p->rule_text, "one device's")) << p->rule_text;
}

// --peak_flops: on the CPU the whole machine's figure (scaled to the run's share); on a GPU one
// device's (as is).
TEST(PeakForRankTest, PeakFlopsFlagIsTheWholeCpuOrOneGpu) {
  const SourcePeak flag = Source(3.0e11, PeakOrigin::kFlag, 0, "flag: peak_flops");
  auto p = PeakForRank(flag, Cpu(1, 2));
  ASSERT_TRUE(IsPeak(p, PeakRule::kScaledFromWholeMachine, 1.5e11));
  EXPECT_TRUE(absl::StrContains(p->peak.source,
                                "flag: peak_flops; x 1/2 cores: a whole-machine figure (--peak_flops)"))
      << p->peak.source;
  p = PeakForRank(flag, Cpu(2, 2));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_DOUBLE_EQ(p->peak.flops_per_s, 3.0e11);
  p = PeakForRank(flag, Gpu());
  ASSERT_TRUE(IsPeak(p, PeakRule::kAsIs, 3.0e11));
}

TEST(PeakForRankTest, BadInputsAreErrorsNamingTheValue) {
  const SourcePeak ok = Source(1e11, PeakOrigin::kFlag, 0, "flag");
  auto e = PeakForRank(ok, Cpu(0, 2));
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(absl::StrContains(e.status().message(), "threads=0")) << e.status();
  e = PeakForRank(ok, Cpu(1, 0));
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(absl::StrContains(e.status().message(), "cores=0")) << e.status();
  e = PeakForRank(ok, RunDevice{"tpu"});
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(absl::StrContains(e.status().message(), "'tpu'")) << e.status();
  e = PeakForRank(Source(0, PeakOrigin::kFlag, 0, "flag"), Cpu(1, 1));
  ASSERT_FALSE(e.ok());
  e = PeakForRank(Source(1e11, PeakOrigin::kCeilingsFile, -1, "f"), Cpu(1, 1));
  ASSERT_FALSE(e.ok());
  EXPECT_TRUE(absl::StrContains(e.status().message(), "measured_threads=-1")) << e.status();
}

StepOptions CpuOptions() {
  StepOptions o;
  o.device = "cpu";
  o.dtype = accounting::Dtype::kFp32;
  return o;
}

// Which figure each flag selects (the CPU measurement runs here, well under a second).
TEST(ChooseSourcePeakTest, OriginFollowsTheFlags) {
  StepOptions o = CpuOptions();
  o.peak_flops = 1.25e11;
  auto s = ChooseSourcePeak(o, "");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->origin, PeakOrigin::kFlag);
  EXPECT_EQ(s->measured_threads, 0);
  EXPECT_DOUBLE_EQ(s->peak.flops_per_s, 1.25e11);

  o.peak_flops = 0;
  s = ChooseSourcePeak(o, "");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->origin, PeakOrigin::kMeasuredAtStartup);
  EXPECT_GE(s->measured_threads, 1);
  EXPECT_GT(s->peak.flops_per_s, 0);

  StepOptions g;
  g.device = "cuda";
  g.dtype = accounting::Dtype::kBf16;
  s = ChooseSourcePeak(g, "NVIDIA H200");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->origin, PeakOrigin::kDatasheet);
  EXPECT_DOUBLE_EQ(s->peak.flops_per_s, 989.5e12);  // H200 SXM bf16 dense
  s = ChooseSourcePeak(g, "NVIDIA GeForce GTX 480");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.status().message(), "--peak_flops")) << s.status();
}

// A GPU whose name no datasheet entry knows (a MIG slice, a new card): refused by default (ddp_step,
// gpt_decode), or with UnknownPeak::kAllow (gpt_step) a figure of 0 that says why, which
// PeakForRank passes through unscaled and ProbeAgain leaves alone: the step is timed, MFU n/a.
TEST(ChooseSourcePeakTest, AnUnknownGpuHasNoPeakWhereTheRunAllowsIt) {
  StepOptions g;
  g.device = "cuda";
  g.dtype = accounting::Dtype::kBf16;
  const std::string mig = "NVIDIA H200 MIG 1g.18gb";
  auto refused = ChooseSourcePeak(g, mig);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              testing::HasSubstr("no datasheet peak for 'NVIDIA H200 MIG 1g.18gb' in bf16"));
  auto s = ChooseSourcePeak(g, mig, UnknownPeak::kAllow);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->origin, PeakOrigin::kNone);
  EXPECT_EQ(s->peak.flops_per_s, 0);
  EXPECT_THAT(s->peak.source, testing::StartsWith("n/a: no peak for 'NVIDIA H200 MIG 1g.18gb' in bf16 ("));
  EXPECT_THAT(s->peak.source, testing::HasSubstr("give --peak_flops=FLOPS or --ceilings=FILE"));
  absl::StatusOr<RankPeak> p = PeakForRank(*s, Gpu());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->peak.flops_per_s, 0);
  EXPECT_EQ(p->origin, PeakOrigin::kNone);
  absl::StatusOr<ProbedPeak> again = ProbeAgain(*p);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->peak.flops_per_s, 0);
  EXPECT_FALSE(again->probes.both());
  // A known GPU is unaffected by the allowance; a figure of 0 from anything else is still refused.
  s = ChooseSourcePeak(g, "NVIDIA H200", UnknownPeak::kAllow);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->origin, PeakOrigin::kDatasheet);
  EXPECT_FALSE(PeakForRank(Source(0, PeakOrigin::kDatasheet, 0, "sheet"), Gpu()).ok());
}

// The test hook stands for such a device on the CPU too, unless a flag gives a figure.
TEST(ChooseSourcePeakTest, TheNoPeakHookMakesTheCpuAnUnknownDevice) {
  ASSERT_EQ(setenv(kNoPeakEnv, "Test Device", 1), 0);
  StepOptions o = CpuOptions();
  auto s = ChooseSourcePeak(o, "AMD EPYC", UnknownPeak::kAllow);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->origin, PeakOrigin::kNone);
  EXPECT_THAT(s->peak.source, testing::HasSubstr("no peak for 'Test Device' in fp32"));
  EXPECT_FALSE(ChooseSourcePeak(o, "AMD EPYC").ok());  // refused where the run needs a peak
  o.peak_flops = 2e11;
  s = ChooseSourcePeak(o, "AMD EPYC", UnknownPeak::kAllow);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->origin, PeakOrigin::kFlag);
  ASSERT_EQ(unsetenv(kNoPeakEnv), 0);
}

// The whole path for a ddp_step rank on the CPU: measured with the run's threads, used as is.
TEST(ChooseRunPeakTest, StartupMeasurementWithTheRunsThreadsIsUsedAsIs) {
  StepOptions o = CpuOptions();
  auto p = ChooseRunPeak(o, "", /*threads=*/0);  // the OpenMP default, as the measurement ran
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->rule, PeakRule::kAsIs) << p->peak.source;
  EXPECT_DOUBLE_EQ(p->scale, 1.0);
}

}  // namespace
}  // namespace macro

// The second probe: the run divides by the best of the start-up and after-run figures (both
// scaled by the same rule), and a figure not measured at start-up is not probed again.
namespace macro {
namespace {

TEST(RankPeakTest, BestOfProbesKeepsTheFasterAndNamesBoth) {
  absl::StatusOr<RankPeak> p =
      PeakForRank(Source(163e9, PeakOrigin::kMeasuredAtStartup, 2, "measured at start-up: x"), Cpu(2, 2));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->origin, PeakOrigin::kMeasuredAtStartup);
  ProbedPeak slow_start = BestOfProbes(*p, 492e9);
  EXPECT_DOUBLE_EQ(slow_start.peak.flops_per_s, 492e9);
  EXPECT_DOUBLE_EQ(slow_start.probes.before, 163e9);
  EXPECT_DOUBLE_EQ(slow_start.probes.after, 492e9);
  EXPECT_THAT(slow_start.peak.source, testing::StartsWith("best of 2 FMA probes: before 163.0 GFLOP/s, after "
                                                          "492.0 GFLOP/s, best taken (they differ by 66.9%)"));
  EXPECT_THAT(slow_start.peak.source, testing::HasSubstr("the start-up probe: measured at start-up: x"));
  ProbedPeak slow_end = BestOfProbes(*p, 100e9);
  EXPECT_DOUBLE_EQ(slow_end.peak.flops_per_s, 163e9);
}

// The record file of one test, in its temporary folder (harness/peak_record.h).
std::string RecordFile(const std::string& name) {
  const std::string dir = absl::StrCat(std::getenv("TEST_TMPDIR"), "/", name);
  mkdir(dir.c_str(), 0700);
  return dir + "/record.json";
}

TEST(RankPeakTest, FiguresNotMeasuredAtStartupAreNotProbedAgain) {
  const std::string record = RecordFile("not_probed");
  ASSERT_EQ(setenv(harness::kPeakRecordEnv, record.c_str(), 1), 0);
  for (PeakOrigin origin : {PeakOrigin::kFlag, PeakOrigin::kCeilingsFile, PeakOrigin::kDatasheet}) {
    absl::StatusOr<RankPeak> p = PeakForRank(Source(1e3, origin, 0, "flag"), Cpu(1, 2));
    ASSERT_TRUE(p.ok()) << p.status();
    absl::StatusOr<ProbedPeak> again = ProbeAgain(*p);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_FALSE(again->probes.both());
    EXPECT_TRUE(again->probes.records.empty());  // not a probe: no record either
    EXPECT_DOUBLE_EQ(again->peak.flops_per_s, p->peak.flops_per_s);
    EXPECT_EQ(again->peak.source, p->peak.source);
  }
  struct stat st;
  EXPECT_NE(stat(record.c_str(), &st), 0) << "a figure that was not probed made a record";
  ASSERT_EQ(unsetenv(harness::kPeakRecordEnv), 0);
}

// A probed peak is compared with this machine's record: here one 1000x the probe (as if a quiet
// run had measured that), so the run is DISTURBED naming both figures, and the record stays.
TEST(RankPeakTest, AProbeFarBelowThisMachinesRecordIsDisturbed) {
  const std::string record = RecordFile("below");
  ASSERT_EQ(setenv(harness::kPeakRecordEnv, record.c_str(), 1), 0);
  const int threads = model::NumThreads();  // the probes' threads (omp_get_max_threads)
  absl::StatusOr<harness::MachineId> machine = harness::ThisMachineId();
  ASSERT_TRUE(machine.ok()) << machine.status();
  ASSERT_TRUE(harness::RaisePeakRecord(record, *machine, {{absl::StrCat("fp32_fma/threads=", threads), 1e15, "FLOP/s"}})
                  .ok());
  absl::StatusOr<RankPeak> p = PeakForRank(
      Source(1e11, PeakOrigin::kMeasuredAtStartup, threads, "measured at start-up: x"), Cpu(threads, threads));
  ASSERT_TRUE(p.ok()) << p.status();
  absl::StatusOr<ProbedPeak> again = ProbeAgain(*p);
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_FALSE(again->probes.records.empty());
  EXPECT_EQ(again->probes.records[0].record, 1e15);
  accounting::Disturbance d = accounting::JudgeDisturbance({}, again->probes);
  EXPECT_TRUE(d.disturbed);
  EXPECT_THAT(d.reason, testing::HasSubstr(absl::StrCat(
                            "GFLOP/s is 0.0% of this machine's record 1000000.0 GFLOP/s (", threads,
                            threads == 1 ? " thread" : " threads", "), more than 15% below it (record: ", record,
                            ")")));
  EXPECT_THAT(again->peak.source,
              testing::HasSubstr(absl::StrCat("; this machine's record (", record,
                                              "): FMA peak probe (the best of start-up and after) "
                                              "1000000.0 GFLOP/s (")));
  EXPECT_EQ(harness::ReadPeakRecord(record, machine->hash)->size(), 1u);  // nothing raised
  ASSERT_EQ(unsetenv(harness::kPeakRecordEnv), 0);
}

// A malformed MLBENCH_PEAK_RECORD is refused before the run when the peak is to be probed; a run
// that does not probe (--peak_flops) does not read it.
TEST(RankPeakTest, AMalformedRecordVariableIsRefusedBeforeTheRun) {
  ASSERT_EQ(setenv(harness::kPeakRecordEnv, "relative/record.json", 1), 0);
  StepOptions o;
  o.device = "cpu";
  auto p = ChooseRunPeak(o, "", /*threads=*/0);
  ASSERT_FALSE(p.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(p.status())) << p.status();
  EXPECT_THAT(std::string(p.status().message()),
              testing::StartsWith("MLBENCH_PEAK_RECORD='relative/record.json' is invalid: allowed an absolute file "
                                  "path"));
  o.peak_flops = 1e11;
  EXPECT_TRUE(ChooseRunPeak(o, "", 0).ok());
  ASSERT_EQ(unsetenv(harness::kPeakRecordEnv), 0);
}

}  // namespace
}  // namespace macro
