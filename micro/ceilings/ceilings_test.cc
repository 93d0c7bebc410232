// //micro:ceilings' cases, quick: every CPU case runs and carries its counters, the recorder
// turns them into a ceilings file that accounting reads back, and the benchmarks' --ceilings
// path resolves to it.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include <omp.h>

#include "absl/strings/match.h"
#include "accounting/ceilings.h"
#include "accounting/memory_roofs.h"
#include "gtest/gtest.h"
#include "measure/cpu_ceilings.h"
#include "micro/ceilings/ceilings_cases.h"
#include "micro/common/collecting_reporter.h"
#include "model/gemm_chooser.h"
#include "model/gpt_config.h"
#include "model/step_gemms.h"
#include "sysinfo/cpu_info.h"

namespace micro {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

TEST(CeilingsBenchmarkTest, CpuCasesMeasureAndTheFileRoundTrips) {
  static CeilingRecorder recorder;
  const RegisteredCases cases = RegisterCeilingsBenchmarks(SizeSet::kQuick, &recorder);
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, ".*");
  ASSERT_EQ(reporter.runs().size(), cases.names.size());
  // The CUDA cases (copy_d2d and 4 GEMM dtypes) are registered only with a usable device.
  const std::string no_cuda = CudaSkipReason();
  EXPECT_EQ(cases.cuda_left_out, no_cuda.empty() ? 0 : 5);
  EXPECT_EQ(cases.left_out_reason, no_cuda);
  double best_fma = 0, best_copy = 0, best_bf16 = 0;
  int memory_roofs_cases = 0, sweep_levels = -1;
  for (const CollectedRun& run : reporter.runs()) {
    SCOPED_TRACE(run.name);
    const bool cuda = absl::StrContains(run.name, "/cuda/");
    EXPECT_FALSE(cuda && !no_cuda.empty()) << "a CUDA case registered without a device";
    if (absl::StrContains(run.name, "cpu/bf16/")) {
      // A bf16 loop this CPU lacks (or AMX without the kernel's permission) is skipped with why.
      const Bf16Isa isa = absl::StrContains(run.name, "amx") ? Bf16Isa::kAmx : Bf16Isa::kAvx512Bf16;
      const bool runs = Bf16IsaSupported(isa) && (isa != Bf16Isa::kAmx || RequestAmxTileData().ok());
      EXPECT_EQ(run.error, !runs) << run.error_message;
      if (!runs) continue;
      EXPECT_EQ(run.counters.at("verified"), 1);
      best_bf16 = std::max(best_bf16, run.counters.at("best_FLOP/s"));
      continue;
    }
    if (absl::StrContains(run.name, "avx512") && !FmaIsaSupported(FmaIsa::kAvx512)) {
      EXPECT_TRUE(run.error);
      continue;
    }
    ASSERT_FALSE(run.error) << run.error_message;
    EXPECT_EQ(run.counters.at("verified"), 1);
    if (absl::StrContains(run.name, "cpu/memory_roofs/")) {
      // Every kind of traffic, its best trial and its spread.
      for (accounting::TrafficKind kind : accounting::kAllTrafficKinds) {
        const std::string name(accounting::TrafficKindName(kind));
        ASSERT_TRUE(run.counters.count(name + "_bytes/s")) << name;
        EXPECT_GT(run.counters.at(name + "_bytes/s"), 0) << name;
        EXPECT_GE(run.counters.at(name + "_spread"), 0) << name;
        EXPECT_LT(run.counters.at(name + "_spread"), 1) << name;
      }
      ++memory_roofs_cases;
      continue;
    }
    if (absl::StrContains(run.name, "cpu/cache_sweep")) {
      // The quick sweep (16 KiB to 4 MiB, one trial) is a smoke test: whatever levels it finds
      // have a capacity and every kind's roof, and reach the file.
      sweep_levels = static_cast<int>(run.counters.at("levels"));
      for (int i = 1; i <= sweep_levels; ++i) {
        EXPECT_GT(run.counters.at(absl::StrCat("level", i, "_capacity_bytes")), 0);
        EXPECT_GT(run.counters.at(absl::StrCat("level", i, "_read_bytes/s")), 0);
      }
      EXPECT_TRUE(absl::StrContains(run.label, "working sets")) << run.label;
      continue;
    }
    const bool flops = absl::StrContains(run.name, "/fma/") || absl::StrContains(run.name, "/gemm/");
    const char* mean = flops ? "FLOP/s" : "bytes/s";
    const char* best = flops ? "best_FLOP/s" : "best_bytes/s";
    ASSERT_TRUE(run.counters.count(mean) && run.counters.count(best));
    EXPECT_GT(run.counters.at(mean), 0);
    // The best trial is at least the mean of the last batch of trials.
    EXPECT_GE(run.counters.at(best), run.counters.at(mean) * (1 - 1e-9));
    if (absl::StrContains(run.name, "cpu/fma/")) best_fma = std::max(best_fma, run.counters.at(best));
    if (absl::StrContains(run.name, "cpu/stream_copy/")) best_copy = run.counters.at(best);
  }

  EXPECT_EQ(memory_roofs_cases, 1);
  ASSERT_TRUE(recorder.HasCpu());
  MicroFlags flags;
  flags.ceilings_out = TempPath("cpu_ceilings.json");
  const absl::Status written = WriteRecordedCeilings(recorder, flags);
  ASSERT_TRUE(written.ok()) << written;
  absl::StatusOr<accounting::Ceilings> back = accounting::ReadCeilings(flags.ceilings_out);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->peak_flops.count("fp32"));
  // The file holds the best trial over every run of the cases (Google Benchmark runs each
  // case more than once while it sizes the iteration count): at least the reported bests.
  // (No absolute speed bound: parallel tests on 2 cores can slow any trial down.)
  EXPECT_GT(best_fma, 0);
  EXPECT_GE(back->peak_flops.at("fp32"), best_fma);
  EXPECT_GT(best_copy, 0);
  EXPECT_GE(back->bandwidth_bytes_per_s, best_copy);
  EXPECT_TRUE(absl::StrContains(back->method, "STREAM copy")) << back->method;
  // The bf16 peak: the faster loop's best trial, named in the method; absent without bf16 units.
  EXPECT_EQ(back->peak_flops.count("bf16"), best_bf16 > 0 ? 1u : 0u);
  if (best_bf16 > 0) {
    EXPECT_GE(back->peak_flops.at("bf16"), best_bf16);
    EXPECT_TRUE(absl::StrContains(back->method, "; bf16: ")) << back->method;
    absl::StatusOr<ResolvedCpuPeak> bf16 = ResolveCpuPeakWithThreads(flags.ceilings_out, accounting::Dtype::kBf16);
    ASSERT_TRUE(bf16.ok()) << bf16.status();
    EXPECT_EQ(bf16->peak.flops_per_s, back->peak_flops.at("bf16"));
  }
  // Quick STREAM arrays (4 MiB) under 4x the last-level cache: labelled cache-resident in the
  // file and its method, and carried to the peak (never a memory bound).
  EXPECT_EQ(back->stream_array_bytes, int64_t{4} << 20);
  const bool resident = accounting::StreamFigureIsCacheResident(int64_t{4} << 20, sysinfo::ReadCpuInfo().l3_bytes);
  EXPECT_EQ(back->bandwidth_cache_resident, resident);
  EXPECT_EQ(absl::StrContains(back->method, "CACHE-RESIDENT"), resident) << back->method;
  // The memory roofs: named in the method; DRAM roofs only from DRAM-sized arrays.
  EXPECT_TRUE(absl::StrContains(back->method, "memory roofs per traffic kind")) << back->method;
  EXPECT_EQ(back->memory.dram_bytes_per_s.empty(), resident);
  ASSERT_GE(sweep_levels, 0) << "no cache_sweep case ran";
  EXPECT_EQ(back->memory.cache_levels.size(), static_cast<size_t>(sweep_levels));

  // Every step GEMM shape (quick: test-tiny at B=2, T=8) has all three backends' rates, so
  // --cpu_gemm=auto with this file chooses without measuring anything.
  const std::vector<model::StepGemm> gemms = model::CpuStepGemms(*model::GptPreset("test-tiny"), 2, 8);
  for (const model::StepGemm& g : gemms) {
    for (model::CpuGemmBackend b : model::kConcreteCpuGemms) {
      EXPECT_GT(back->gemm_flops_per_s.count(g.Key(b)), 0u) << g.Key(b);
    }
  }
  std::string source;
  auto chosen = model::ChooseCpuGemms(
      gemms, std::vector<model::CpuGemmBackend>(std::begin(model::kConcreteCpuGemms), std::end(model::kConcreteCpuGemms)),
      back->gemm_flops_per_s, 5, &source);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  EXPECT_EQ(source, "from the ceilings file");

  absl::StatusOr<accounting::Peak> peak = ResolveCpuPeak(flags.ceilings_out);
  ASSERT_TRUE(peak.ok()) << peak.status();
  EXPECT_EQ(peak->flops_per_s, back->peak_flops.at("fp32"));
  EXPECT_EQ(peak->bytes_per_s, back->bandwidth_bytes_per_s);
  EXPECT_EQ(peak->bandwidth_cache_resident, resident);
  EXPECT_TRUE(absl::StartsWith(peak->source, "measured: ")) << peak->source;
  // The file's method names the threads its FMA figure was measured with.
  absl::StatusOr<ResolvedCpuPeak> with_threads = ResolveCpuPeakWithThreads(flags.ceilings_out);
  ASSERT_TRUE(with_threads.ok()) << with_threads.status();
  EXPECT_TRUE(with_threads->from_file);
  EXPECT_EQ(with_threads->fma_threads, omp_get_max_threads()) << back->method;

  // Without a GPU the CUDA file cannot be written, and says why.
  if (!no_cuda.empty()) {
    MicroFlags cuda_flags;
    cuda_flags.cuda_ceilings_out = TempPath("gpu_ceilings.json");
    absl::Status s = WriteRecordedCeilings(recorder, cuda_flags);
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(absl::StrContains(s.message(), "copy_d2d")) << s;
  }
}

TEST(CeilingsBenchmarkTest, NothingMeasuredIsAnError) {
  CeilingRecorder empty;
  MicroFlags flags;
  flags.ceilings_out = TempPath("never_written.json");
  absl::Status s = WriteRecordedCeilings(empty, flags);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(absl::StrContains(s.message(), "nothing to write")) << s;
  EXPECT_EQ(std::fopen(flags.ceilings_out.c_str(), "r"), nullptr);
}

TEST(CeilingsBenchmarkTest, StartupMeasurementSaysSo) {
  absl::StatusOr<accounting::Peak> peak = ResolveCpuPeak("");
  ASSERT_TRUE(peak.ok()) << peak.status();
  EXPECT_GT(peak->flops_per_s, 0);
  EXPECT_GT(peak->bytes_per_s, 0);
  EXPECT_TRUE(absl::StartsWith(peak->source, "measured at start-up")) << peak->source;
  EXPECT_FALSE(ResolveCpuPeak(TempPath("missing.json")).ok());
}

TEST(CeilingsBenchmarkTest, StartupMeasurementNamesItsThreads) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  absl::StatusOr<ResolvedCpuPeak> one = ResolveCpuPeakWithThreads("");
  omp_set_num_threads(before);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_FALSE(one->from_file);
  EXPECT_EQ(one->fma_threads, 1);
  EXPECT_TRUE(absl::StrContains(one->peak.source, " x1 threads ")) << one->peak.source;
}

TEST(CpuMethodThreadsTest, ReadsTheCountDescribeCpuMethodWrites) {
  CpuCeilingsResult r;
  FmaPeakResult f;
  f.isa = FmaIsa::kAvx2;
  f.threads = 12;
  f.flops_per_s = 1e11;
  r.avx2 = f;
  const std::string method = DescribeCpuMethod(r);
  EXPECT_EQ(CpuMethodThreads(method), 12) << method;
  EXPECT_EQ(CpuMethodThreads("//micro:ceilings: " + method + "; best trial of each"), 12);
  EXPECT_EQ(CpuMethodThreads("FMA loop on 1 thread"), 1);
  // Texts that do not say: 0 (the caller treats the figure as the whole machine's).
  EXPECT_EQ(CpuMethodThreads(""), 0);
  EXPECT_EQ(CpuMethodThreads("hand-written: vendor figure"), 0);
  EXPECT_EQ(CpuMethodThreads("FMA loop on all threads"), 0);
  EXPECT_EQ(CpuMethodThreads("FMA loop on 8 cores"), 0);
}

}  // namespace
}  // namespace micro
