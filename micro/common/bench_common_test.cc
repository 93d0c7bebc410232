// The micro binaries' own flags: extracted from argv, validated, the rest left for Google
// Benchmark; and the counters for a case without a peak.
#include "micro/common/bench_common.h"

#include <cstdlib>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "harness/argv.h"
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
  if (!skip.empty()) EXPECT_TRUE(absl::StartsWith(skip, "no CUDA device: ")) << skip;
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

}  // namespace
}  // namespace micro
