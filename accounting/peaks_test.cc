// Datasheet registry: lookup by CUDA name, dense by default, sparse flagged, unknown = error.
#include "accounting/peaks.h"

#include "accounting/roofline.h"
#include "gtest/gtest.h"

namespace accounting {
namespace {

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

TEST(Peaks, RequiredEntriesExistWithBandwidthMemoryAndCitation) {
  for (const char* name :
       {"NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-40GB", "NVIDIA A100 80GB PCIe", "NVIDIA A100-PCIE-40GB",
        "NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H200", "NVIDIA B200"}) {
    absl::StatusOr<const DatasheetEntry*> e = FindDatasheetEntry(name);
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_GT((*e)->memory_bytes, 10e9) << name;
    EXPECT_GT((*e)->bandwidth_bytes_per_s, 1e12) << name;
    EXPECT_TRUE(Contains((*e)->url, "https://")) << name;
    EXPECT_TRUE((*e)->bf16.has_value()) << name;
  }
}

TEST(Peaks, DenseFiguresByDeviceAndDtype) {
  struct Case {
    const char* device;
    Dtype dtype;
    double flops;
    double bw;
  };
  for (Case c : {Case{"NVIDIA A100-SXM4-80GB", Dtype::kBf16, 312e12, 2.039e12},
                 Case{"NVIDIA A100-SXM4-80GB", Dtype::kTf32, 156e12, 2.039e12},
                 Case{"NVIDIA A100-SXM4-80GB", Dtype::kFp32, 19.5e12, 2.039e12},
                 Case{"NVIDIA H100 80GB HBM3", Dtype::kBf16, 989.5e12, 3.35e12},
                 Case{"NVIDIA H100 80GB HBM3", Dtype::kFp8, 1979e12, 3.35e12},
                 Case{"NVIDIA H100 PCIe", Dtype::kBf16, 756.5e12, 2.0e12},
                 Case{"NVIDIA H200", Dtype::kBf16, 989.5e12, 4.8e12},
                 Case{"NVIDIA H200", Dtype::kFp16, 989.5e12, 4.8e12},
                 Case{"NVIDIA B200", Dtype::kBf16, 2.25e15, 8e12}}) {
    absl::StatusOr<Peak> p = DatasheetPeak(c.device, c.dtype);
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_DOUBLE_EQ(p->flops_per_s, c.flops) << c.device << " " << DtypeName(c.dtype);
    EXPECT_DOUBLE_EQ(p->bytes_per_s, c.bw) << c.device;
    EXPECT_TRUE(Contains(p->source, "datasheet:")) << p->source;
    EXPECT_TRUE(Contains(p->source, "dense")) << p->source;
    EXPECT_TRUE(Contains(p->source, DtypeName(c.dtype))) << p->source;
  }
}

TEST(Peaks, SparseIsFlaggedAndOnlyOnRequest) {
  absl::StatusOr<Peak> dense = DatasheetPeak("NVIDIA H100 80GB HBM3", Dtype::kBf16);
  absl::StatusOr<Peak> sparse = DatasheetPeak("NVIDIA H100 80GB HBM3", Dtype::kBf16, Sparsity::kSparse);
  ASSERT_TRUE(dense.ok() && sparse.ok());
  EXPECT_DOUBLE_EQ(sparse->flops_per_s, 1979e12);  // the datasheet's headline figure
  EXPECT_DOUBLE_EQ(dense->flops_per_s * 2, sparse->flops_per_s);
  EXPECT_TRUE(Contains(sparse->source, "SPARSE"));
  EXPECT_FALSE(Contains(dense->source, "SPARSE"));
}

TEST(Peaks, LookupIsByCudaNameOrAliasCaseInsensitive) {
  EXPECT_EQ((*FindDatasheetEntry("nvidia h100 80gb hbm3"))->name, "NVIDIA H100 SXM5");
  EXPECT_EQ((*FindDatasheetEntry("H100"))->name, "NVIDIA H100 SXM5");
  EXPECT_EQ((*FindDatasheetEntry("a100"))->name, "NVIDIA A100 SXM4 80GB");
  EXPECT_EQ((*FindDatasheetEntry("A100-PCIe"))->name, "NVIDIA A100 PCIe 80GB");
  EXPECT_EQ((*FindDatasheetEntry("H200"))->name, "NVIDIA H200 SXM");
  EXPECT_EQ((*FindDatasheetEntry("NVIDIA H200 NVL"))->name, "NVIDIA H200 NVL");
}

TEST(Peaks, UnknownDeviceSaysHowToGiveAPeak) {
  absl::StatusOr<Peak> p = DatasheetPeak("NVIDIA GeForce RTX 4090", Dtype::kBf16);
  ASSERT_FALSE(p.ok());
  EXPECT_TRUE(Contains(std::string(p.status().message()), "'NVIDIA GeForce RTX 4090'"));
  EXPECT_TRUE(Contains(std::string(p.status().message()), "--peak_flops"));
  EXPECT_TRUE(Contains(std::string(p.status().message()), "--ceilings"));
  EXPECT_FALSE(DatasheetBandwidth("Tesla V100").ok());
}

TEST(Peaks, DtypeTheDeviceLacksIsAnError) {
  absl::StatusOr<Peak> p = DatasheetPeak("A100", Dtype::kFp8);
  ASSERT_FALSE(p.ok());
  EXPECT_TRUE(Contains(std::string(p.status().message()), "fp8"));
}

TEST(Peaks, A100DatasheetRidgeIsNearTheSeeds156) {
  // The seed rounds the 80GB SXM4's 2039 GB/s to 2.0 TB/s (ridge 156); the datasheet gives 153.
  absl::StatusOr<Peak> p = DatasheetPeak("A100", Dtype::kBf16);
  RooflineResult r = Roofline(p->flops_per_s, p->bytes_per_s, 1, 1);
  EXPECT_NEAR(r.ridge, 156, 156 * 0.03);
}

TEST(Peaks, FlagPeaksMustBePositive) {
  EXPECT_TRUE(PeakFromFlags(1e12, 0, "--peak_flops").ok());
  EXPECT_EQ(PeakFromFlags(1e12, 0, "--peak_flops")->source, "flag: --peak_flops");
  EXPECT_FALSE(PeakFromFlags(-1, 0, "--peak_flops").ok());
  EXPECT_FALSE(PeakFromFlags(0, 0, "--peak_flops").ok());
  // Outside the physical bands (accounting/plausible.h): an MFU of inf% or 0.00% otherwise.
  absl::StatusOr<Peak> tiny = PeakFromFlags(1e-300, 0, "--peak_flops");
  ASSERT_FALSE(tiny.ok());
  EXPECT_NE(tiny.status().message().find("--peak_flops = 1e-300 FLOP/s is outside the plausible band"),
            std::string::npos)
      << tiny.status();
  EXPECT_FALSE(PeakFromFlags(1e308, 0, "--peak_flops").ok());
  EXPECT_FALSE(PeakFromFlags(1e12, 1e15, "--bandwidth").ok());
}

}  // namespace
}  // namespace accounting
