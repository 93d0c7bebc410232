// Declared CPU peak: cores x lanes x FMA units x 2 x clock.
#include "accounting/cpu_peak.h"

#include "gtest/gtest.h"

namespace accounting {
namespace {

TEST(CpuPeak, DeclaredIsTheProductOfItsFactors) {
  // 2 Zen 3 cores, AVX2 (8 fp32 lanes), 2 FMA pipes, 3.0 GHz = 192 GFLOP/s.
  absl::StatusOr<Peak> p = CpuDeclaredPeak({2, 8, 2, 3.0e9});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_DOUBLE_EQ(p->flops_per_s, 192e9);
  EXPECT_EQ(p->source, "declared: 2 cores x 8 lanes x 2 FMA units x 2 FLOP/FMA x 3.00 GHz");
}

TEST(CpuPeak, BadFactorsNameTheField) {
  absl::StatusOr<Peak> p = CpuDeclaredPeak({0, 8, 2, 3e9});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("cores=0"), std::string::npos);
  EXPECT_FALSE(CpuDeclaredPeak({2, 8, 2, 0}).ok());
  EXPECT_FALSE(CpuDeclaredPeak({2, 0, 2, 3e9}).ok());
  EXPECT_FALSE(CpuDeclaredPeak({2, 8, 0, 3e9}).ok());
}

TEST(CpuPeak, FromInfo) {
  sysinfo::CpuInfo info;
  info.model = "Test CPU";
  info.physical_cores = 4;
  info.logical_cpus = 8;
  info.avx512f = true;
  info.avx2 = true;
  info.fma = true;
  info.mhz = 2000;
  absl::StatusOr<Peak> p = CpuDeclaredPeakFromInfo(info, Dtype::kFp32);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_DOUBLE_EQ(p->flops_per_s, 4.0 * 16 * 2 * 2 * 2e9);
  EXPECT_NE(p->source.find("Test CPU"), std::string::npos);
  EXPECT_FALSE(CpuDeclaredPeakFromInfo(info, Dtype::kBf16).ok());
  info.mhz = 0;
  EXPECT_FALSE(CpuDeclaredPeakFromInfo(info, Dtype::kFp32).ok());
  info.mhz = 2000;
  info.fma = false;
  EXPECT_FALSE(CpuDeclaredPeakFromInfo(info, Dtype::kFp32).ok());
}

}  // namespace
}  // namespace accounting
