// The micro binaries' own flags: extracted from argv, validated, the rest left for Google
// Benchmark; and the counters for a case without a peak.
#include "micro/common/bench_common.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "accounting/disturbed.h"
#include "gtest/gtest.h"
#include "harness/argv.h"
#include "micro/common/collecting_reporter.h"
#include "measure/cpu_ceilings.h"

namespace micro {
namespace {

using harness::Argv;

TEST(BenchCommonTest, ExtractsOwnFlagsAndKeepsTheRest) {
  Argv a({"matmul", "--benchmark_filter=cpu", "--ceilings=/tmp/c.json", "--sizes=quick",
          "--cuda_ceilings=/tmp/g.json", "--benchmark_min_time=0.01"});
  absl::StatusOr<MicroFlags> f = ExtractMicroFlags(BinaryKind::kMatmul, &a.argc, a.argv());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->ceilings, "/tmp/c.json");
  EXPECT_EQ(f->cuda_ceilings, "/tmp/g.json");
  EXPECT_EQ(f->sizes, SizeSet::kQuick);
  ASSERT_EQ(a.argc, 3);
  EXPECT_STREQ(a.argv()[1], "--benchmark_filter=cpu");
  EXPECT_STREQ(a.argv()[2], "--benchmark_min_time=0.01");
  EXPECT_EQ(a.argv()[3], nullptr);
}

TEST(BenchCommonTest, RelativePathsResolveWhereBazelRunWasStarted) {
  setenv("BUILD_WORKING_DIRECTORY", "/home/u/work", 1);
  Argv a({"ceilings", "--ceilings=c.json", "--cuda_ceilings=g/g.json", "--ceilings_out=out.json",
          "--cuda_ceilings_out=/abs/gpu.json"});
  absl::StatusOr<MicroFlags> f = ExtractMicroFlags(BinaryKind::kCeilings, &a.argc, a.argv());
  unsetenv("BUILD_WORKING_DIRECTORY");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->ceilings, "/home/u/work/c.json");
  EXPECT_EQ(f->cuda_ceilings, "/home/u/work/g/g.json");
  EXPECT_EQ(f->ceilings_out, "/home/u/work/out.json");
  EXPECT_EQ(f->cuda_ceilings_out, "/abs/gpu.json");
}

TEST(BenchCommonTest, BadFlagsAreErrorsThatNameThem) {
  Argv sizes({"matmul", "--sizes=huge"});
  absl::StatusOr<MicroFlags> f = ExtractMicroFlags(BinaryKind::kMatmul, &sizes.argc, sizes.argv());
  ASSERT_FALSE(f.ok());
  EXPECT_TRUE(absl::StrContains(f.status().message(), "--sizes=huge")) << f.status();
  EXPECT_TRUE(absl::StrContains(f.status().message(), "default, quick")) << f.status();

  Argv out({"matmul", "--ceilings_out=/tmp/x.json"});
  f = ExtractMicroFlags(BinaryKind::kMatmul, &out.argc, out.argv());
  ASSERT_FALSE(f.ok());
  EXPECT_TRUE(absl::StrContains(f.status().message(), "only //micro:ceilings")) << f.status();

  Argv ok({"ceilings", "--ceilings_out=/tmp/x.json", "--cuda_ceilings_out=/tmp/y.json"});
  f = ExtractMicroFlags(BinaryKind::kCeilings, &ok.argc, ok.argv());
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->ceilings_out, "/tmp/x.json");
  EXPECT_EQ(f->cuda_ceilings_out, "/tmp/y.json");

  Argv empty({"matmul", "--ceilings="});
  EXPECT_FALSE(ExtractMicroFlags(BinaryKind::kMatmul, &empty.argc, empty.argv()).ok());
}

TEST(BenchCommonTest, CudaProbeGivesAReasonWhenUnavailable) {
  const std::string skip = CudaSkipReason();
  EXPECT_EQ(skip.empty(), CudaProbe().available);
  if (!skip.empty()) {
    EXPECT_TRUE(absl::StartsWith(skip, "no CUDA device: ")) << skip;
  }
}

TEST(BenchCommonTest, DatasheetPeakForCudaAndErrorForUnknownDevice) {
  PeakProvider peaks("", "");
  absl::StatusOr<accounting::Peak> h100 = peaks.Cuda("NVIDIA H100 80GB HBM3", accounting::Dtype::kBf16);
  ASSERT_TRUE(h100.ok()) << h100.status();
  EXPECT_GT(h100->flops_per_s, 5e14);
  EXPECT_TRUE(absl::StartsWith(h100->source, "datasheet")) << h100->source;
  EXPECT_FALSE(peaks.Cuda("Imaginary GPU 9000", accounting::Dtype::kBf16).ok());
  PeakProvider from_file("", "/nonexistent/ceilings.json");
  EXPECT_FALSE(from_file.Cuda("NVIDIA H100 80GB HBM3", accounting::Dtype::kBf16).ok());
}

TEST(BenchCommonTest, CeilingsFilesAreCheckedAgainstTheMachine) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir != nullptr ? dir : "/tmp") + "/gpu_ceilings.json";
  accounting::Ceilings gpu;
  gpu.machine = "NVIDIA H200";
  gpu.peak_flops["bf16"] = 7e14;
  gpu.bandwidth_bytes_per_s = 4e12;
  gpu.method = "test";
  gpu.date = "2024-01-01T00:00:00Z";
  ASSERT_TRUE(accounting::WriteCeilings(path, gpu).ok());

  MicroFlags flags;
  flags.ceilings = path;
  ASSERT_TRUE(RouteCeilingsFiles(&flags).ok());
  if (CudaProbe().available && CudaProbe().devices[0].name == "NVIDIA H200") {
    EXPECT_EQ(flags.cuda_ceilings, path);  // the GPU's file goes to the CUDA cases
    EXPECT_EQ(flags.ceilings, "");
  } else {
    // Not this machine's GPU: it stays a CPU file, and the CPU peak refuses it.
    EXPECT_EQ(flags.ceilings, path);
    absl::StatusOr<accounting::Peak> p = ResolveCpuPeak(path);
    ASSERT_FALSE(p.ok());
    EXPECT_TRUE(absl::StrContains(p.status().message(), "not this CPU")) << p.status();
  }
  MicroFlags missing;
  missing.ceilings = path + ".missing";
  EXPECT_FALSE(RouteCeilingsFiles(&missing).ok());
}

accounting::Peak SlowProbe() {  // a start-up probe taken in a slow moment
  accounting::Peak p;
  p.flops_per_s = 5e11;
  p.bytes_per_s = 1e11;
  p.source = "start-up probe";
  return p;
}

TEST(BenchCommonTest, ACaseAboveTheStartupProbeReprobesAndKeepsTheBest) {
  int calls = 0;
  PeakProvider peaks(SlowProbe(), [&calls]() -> absl::StatusOr<double> {
    ++calls;
    return 1.2e12;
  });
  // Within the tolerance of the peak: no re-probe.
  EXPECT_EQ(peaks.CpuFor(5e11 * (1 + accounting::kCeilingTolerance))->flops_per_s, 5e11);
  EXPECT_EQ(calls, 0);
  absl::StatusOr<accounting::Peak> p = peaks.CpuFor(1e12);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(p->flops_per_s, 1.2e12);
  EXPECT_TRUE(absl::StrContains(p->source, "start-up probe; FMA re-probed after a case above it (1 of at most 4): "
                                           "1200.0 GFLOP/s, now the peak (start-up probe 500.0)"))
      << p->source;
  // Later cases divide by the best probe, and below it nothing is probed again.
  EXPECT_EQ(peaks.Cpu()->flops_per_s, 1.2e12);
  EXPECT_EQ(peaks.CpuFor(1.1e12)->flops_per_s, 1.2e12);
  EXPECT_EQ(peaks.reprobes(), 1);
}

TEST(BenchCommonTest, AReprobeNeverLowersThePeakAndStopsAfterTheLimit) {
  int calls = 0;
  PeakProvider peaks(SlowProbe(), [&calls]() -> absl::StatusOr<double> {
    ++calls;
    return 4e11;
  });
  for (int i = 0; i < PeakProvider::kMaxReprobes + 3; ++i) EXPECT_EQ(peaks.CpuFor(1e12)->flops_per_s, 5e11);
  EXPECT_EQ(calls, PeakProvider::kMaxReprobes);
  EXPECT_TRUE(absl::StrContains(peaks.Cpu()->source, "400.0 GFLOP/s, lower: the best probe stands"))
      << peaks.Cpu()->source;
  // No rate to speak of: no probe either.
  PeakProvider fresh(SlowProbe(), [&calls]() -> absl::StatusOr<double> { return ++calls; });
  fresh.CpuFor(std::numeric_limits<double>::infinity()).status().IgnoreError();
  fresh.CpuFor(std::nan("")).status().IgnoreError();
  EXPECT_EQ(fresh.reprobes(), 0);
}

TEST(BenchCommonTest, AGivenPeakIsNeverReprobed) {
  PeakProvider fixed(SlowProbe());  // a --ceilings file or a caller's figure: what the user gave
  EXPECT_EQ(fixed.CpuFor(1e13)->flops_per_s, 5e11);
  EXPECT_EQ(fixed.reprobes(), 0);
  PeakProvider failing(SlowProbe(), []() -> absl::StatusOr<double> { return absl::InternalError("no FMA"); });
  absl::StatusOr<accounting::Peak> p = failing.CpuFor(1e12);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->flops_per_s, 5e11);
  EXPECT_TRUE(absl::StrContains(p->source, "re-probe after a case above it failed: no FMA")) << p->source;
}

// The whole path of a case: its rate (1e12 FLOP/s, from manual times) above a slow start-up
// probe (5e11). A re-probe that finds the machine's real peak clears it; one that finds the
// machine still slow leaves it DISTURBED, with both probes in its label.
std::vector<CollectedRun> RunRateCase(const std::string& name, std::shared_ptr<PeakProvider> peaks) {
  benchmark::RegisterBenchmark(name.c_str(), [peaks](benchmark::State& state) {
    for (auto _ : state) state.SetIterationTime(1e-3);
    SetWorkCounters(state, peaks->CpuFor(1e9 / 1e-3), 1e9, 1e6, 1e-3);
  })->UseManualTime()->Iterations(3);
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, "^" + name + "/");
  return reporter.runs();
}

TEST(BenchCommonTest, ACaseAboveASlowStartupProbeIsJudgedAgainstTheReprobe) {
  const std::vector<CollectedRun> fast =
      RunRateCase("BM_RateAboveSlowProbe", std::make_shared<PeakProvider>(SlowProbe(), [] {
                    return absl::StatusOr<double>(1.25e12);
                  }));
  ASSERT_EQ(fast.size(), 1u);
  EXPECT_EQ(fast[0].counters.at("disturbed"), 0) << fast[0].label;
  EXPECT_NEAR(fast[0].counters.at("pct_of_peak"), 80, 1e-6);
  EXPECT_EQ(fast[0].counters.at("peak_FLOP/s"), 1.25e12);
  EXPECT_TRUE(absl::StartsWith(fast[0].label, "peak: start-up probe; FMA re-probed")) << fast[0].label;

  const std::vector<CollectedRun> slow =
      RunRateCase("BM_RateAboveSlowReprobe", std::make_shared<PeakProvider>(SlowProbe(), [] {
                    return absl::StatusOr<double>(6e11);
                  }));
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].counters.at("disturbed"), 1);
  EXPECT_TRUE(absl::StartsWith(slow[0].label, "DISTURBED: FLOP/s of the peak 166.67% > 100%")) << slow[0].label;
  EXPECT_TRUE(absl::StrContains(slow[0].label, "600.0 GFLOP/s, now the peak (start-up probe 500.0)")) << slow[0].label;
}

}  // namespace
}  // namespace micro
