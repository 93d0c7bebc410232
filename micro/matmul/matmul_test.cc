// //micro:matmul's cases, quick: every CPU case runs (tiny sizes, tiny min time) and carries
// its counters; CUDA cases are registered (and carry them too) only with a usable device.
#include <algorithm>
#include <cmath>
#include <memory>

#include "absl/strings/match.h"
#include "accounting/costs.h"
#include "gtest/gtest.h"
#include "micro/common/case_checks.h"
#include "micro/matmul/matmul_cases.h"

namespace micro {
namespace {

TEST(MatmulBenchmarkTest, EveryCaseReportsItsCounters) {
  const RegisteredCases cases = RegisterMatmulBenchmarks(SizeSet::kQuick, TestPeaks(1e12, 1e11));
  // One CPU family per library, and the bf16 family where the CPU has bf16 units.
  const int64_t shapes = static_cast<int64_t>(CpuMatmulShapes(SizeSet::kQuick).size());
  const bool bf16 = CpuBf16Unsupported().empty();
  const SweepCases expected{
      4 * shapes + (bf16 ? shapes : 0),
      static_cast<int64_t>(CudaMatmulDtypes().size() * CudaMatmulShapes(SizeSet::kQuick).size())};
  ASSERT_NO_FATAL_FAILURE(RunCasesAndCheckCounters(
      cases, expected, {"FLOP/s", "bytes/s", "intensity", "verified"},
      [](const CollectedRun& run, bool cuda) {
        EXPECT_GT(run.counters.at("FLOP/s"), 0);
        // FLOP/s and bytes/s come from the same time: their ratio is the intensity.
        EXPECT_NEAR(run.counters.at("FLOP/s") / run.counters.at("bytes/s"), run.counters.at("intensity"),
                    1e-9 * run.counters.at("intensity"));
        if (cuda) return;
        ASSERT_TRUE(run.counters.count("pct_of_peak"));
        if (absl::StrContains(run.name, "/cpu/onednn/bf16/out:fp32/")) {
          // bf16 x bf16 -> fp32 on oneDNN's bf16 kernel, against the bf16 peak (4e12 here).
          EXPECT_NEAR(run.counters.at("pct_of_peak"), 100 * run.counters.at("FLOP/s") / 4e12,
                      1e-9 * run.counters.at("pct_of_peak"));
          EXPECT_TRUE(absl::StartsWith(run.label, "oneDNN ")) << run.label;
          EXPECT_TRUE(absl::StrContains(run.label, "bf16, bf16 x bf16 -> fp32")) << run.label;
          EXPECT_TRUE(absl::EndsWith(run.label, "; peak: test bf16 peak")) << run.label;
          const double m = 1.0 * run.counters.at("intensity");
          EXPECT_EQ(run.counters.at("memory_bound"), m < 40 ? 1 : 0);  // ridge 4e12 / 1e11
          return;
        }
        EXPECT_NEAR(run.counters.at("pct_of_peak"), 100 * run.counters.at("FLOP/s") / 1e12,
                    1e-9 * run.counters.at("pct_of_peak"));
        EXPECT_EQ(run.counters.at("peak_FLOP/s"), 1e12);
        // The label names the kernel that ran, then the peak.
        // cpu/auto first says what it chose, from which medians, then names that kernel.
        std::string label = run.label;
        if (absl::StrContains(run.name, "/cpu/auto/")) {
          EXPECT_TRUE(absl::StartsWith(label, "auto chose ")) << label;
          EXPECT_TRUE(absl::StrContains(label, "(medians in GFLOP/s: onednn ")) << label;
          EXPECT_TRUE(absl::StrContains(label, " onednn_sgemm ")) << label;
          EXPECT_TRUE(absl::StrContains(label, " openblas ")) << label;
          label = label.substr(label.find("): ") + 3);
        } else {
          EXPECT_TRUE(absl::StrContains(run.name, "/cpu/onednn/") || absl::StrContains(run.name, "/cpu/openblas/") ||
                      absl::StrContains(run.name, "/cpu/onednn_sgemm/"))
              << run.name;
        }
        const bool onednn = absl::StartsWith(label, "oneDNN ");
        EXPECT_TRUE(onednn || absl::StartsWith(label, "OpenBLAS ")) << run.label;
        EXPECT_TRUE(absl::StrContains(label, onednn ? "effective ISA " : " core ")) << run.label;
        if (absl::StrContains(run.name, "/cpu/onednn_sgemm/")) {
          EXPECT_TRUE(absl::StrContains(label, "dnnl_sgemm, column-major")) << run.label;
        }
        EXPECT_TRUE(absl::EndsWith(run.label, "; peak: test peak")) << run.label;
        // Ridge 1e12 / 1e11 = 10 FLOP/byte: squares sit above it (bound = peak), the GPT
        // shapes at B*T = 16 below it (bound = intensity x bandwidth).
        const double intensity = run.counters.at("intensity");
        const double bound = std::min(1e12, intensity * 1e11);
        EXPECT_EQ(run.counters.at("memory_bound"), intensity < 10 ? 1 : 0);
        EXPECT_NEAR(run.counters.at("pct_of_roofline"), 100 * run.counters.at("FLOP/s") / bound,
                    1e-9 * run.counters.at("pct_of_roofline"));
      }));
}

TEST(MatmulBenchmarkTest, NamesEncodeEveryParameter) {
  EXPECT_EQ(MatmulCaseName("cuda", accounting::Dtype::kBf16, {4096, 4096, 4096}),
            "BM_Matmul/cuda/bf16/M:4096/K:4096/N:4096");
  EXPECT_EQ(MatmulCaseName(CpuMatmulDevice(model::CpuGemmBackend::kOneDnn).c_str(), accounting::Dtype::kFp32,
                           {1024, 768, 2304}),
            "BM_Matmul/cpu/onednn/fp32/M:1024/K:768/N:2304");
  EXPECT_EQ(MatmulCaseName(CpuMatmulDevice(model::CpuGemmBackend::kOpenBlas).c_str(),
                           accounting::Dtype::kFp32, {2048, 2048, 2048}),
            "BM_Matmul/cpu/openblas/fp32/M:2048/K:2048/N:2048");
  EXPECT_EQ(MatmulCaseName(CpuMatmulDevice(model::CpuGemmBackend::kAuto).c_str(), accounting::Dtype::kFp32,
                           {256, 256, 256}),
            "BM_Matmul/cpu/auto/fp32/M:256/K:256/N:256");
}

TEST(MatmulBenchmarkTest, DefaultSweepHasSquaresAndGptShapes) {
  const auto cpu = CpuMatmulShapes(SizeSet::kDefault);
  ASSERT_GE(cpu.size(), 7u);
  EXPECT_EQ(cpu.front().m, 64);
  bool has_4096 = false, has_lm_head = false;
  for (const MatmulShape& s : cpu) {
    has_4096 |= s.m == 4096 && s.k == 4096 && s.n == 4096;
    has_lm_head |= s.k == 768 && s.n == 50304;
  }
  EXPECT_TRUE(has_4096);
  EXPECT_TRUE(has_lm_head);
  bool cuda_16384 = false;
  for (const MatmulShape& s : CudaMatmulShapes(SizeSet::kDefault)) cuda_16384 |= s.m == 16384;
  EXPECT_TRUE(cuda_16384);
  EXPECT_EQ(CudaMatmulDtypes().size(), 4u);
}

}  // namespace
}  // namespace micro
