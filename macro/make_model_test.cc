// MakeModel's device choice: the run's CUDA device by index (a ddp_step rank's local rank), its
// name for the datasheet peak, and errors that name the devices there are. The inventory is
// made up, so the choice is checked without a GPU; MakeModel itself runs on the CPU here.
#include "macro/make_model.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "sysinfo/cuda_info.h"

namespace macro {
namespace {

sysinfo::CudaInventory TwoGpus() {
  sysinfo::CudaInventory inv;
  inv.compiled_with_cuda = true;
  inv.available = true;
  sysinfo::CudaDevice a, b;
  a.index = 0;
  a.name = "NVIDIA H100 80GB HBM3";
  b.index = 1;
  b.name = "NVIDIA H200";
  inv.devices = {a, b};
  return inv;
}

TEST(ChooseCudaDeviceTest, TheRanksDeviceNotTheFirstNorTheLast) {
  const sysinfo::CudaInventory inv = TwoGpus();
  auto d0 = ChooseCudaDevice(inv, 0);
  ASSERT_TRUE(d0.ok()) << d0.status();
  EXPECT_EQ(d0->index, 0);
  EXPECT_EQ(d0->name, "NVIDIA H100 80GB HBM3");
  auto d1 = ChooseCudaDevice(inv, 1);
  ASSERT_TRUE(d1.ok()) << d1.status();
  EXPECT_EQ(d1->index, 1);
  EXPECT_EQ(d1->name, "NVIDIA H200");
}

TEST(ChooseCudaDeviceTest, ByIndexEvenWhenADeviceDidNotAnswer) {
  sysinfo::CudaInventory inv = TwoGpus();
  inv.devices.erase(inv.devices.begin());  // device 0 failed cudaGetDeviceProperties
  auto d = ChooseCudaDevice(inv, 1);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->name, "NVIDIA H200");
  EXPECT_FALSE(ChooseCudaDevice(inv, 0).ok());
}

TEST(ChooseCudaDeviceTest, ErrorsNameTheValueAndTheDevices) {
  auto e = ChooseCudaDevice(TwoGpus(), 2);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(e.status().message(), "CUDA device 2 does not exist")) << e.status();
  EXPECT_TRUE(absl::StrContains(e.status().message(), "0 (NVIDIA H100 80GB HBM3), 1 (NVIDIA H200)"))
      << e.status();

  sysinfo::CudaInventory none;
  none.reason = "no NVIDIA driver";
  e = ChooseCudaDevice(none, 0);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(absl::StrContains(e.status().message(), "no CUDA device: no NVIDIA driver")) << e.status();
}

StepOptions Tiny(const std::string& device) {
  StepOptions o;
  o.config = *model::GptPreset("test-tiny");
  o.batch = 2;
  o.seq = 8;
  o.device = device;
  o.dtype = device == "cuda" ? accounting::Dtype::kBf16 : accounting::Dtype::kFp32;
  o.seed = 1;
  return o;
}

TEST(MakeModelTest, CpuModelIsNamedAfterTheCpu) {
  std::string name;
  auto m = MakeModel(Tiny("cpu"), /*cuda_device=*/5, &name);  // ignored on the CPU
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_FALSE(name.empty());
}

TEST(MakeModelTest, CudaWithoutTheDeviceSaysWhy) {
  const sysinfo::CudaInventory inv = sysinfo::ProbeCuda();
  if (inv.available && sysinfo::FindCudaDevice(inv, 64) != nullptr) GTEST_SKIP() << "a machine with 65 GPUs";
  std::string name = "unchanged";
  auto m = MakeModel(Tiny("cuda"), /*cuda_device=*/64, &name);
  ASSERT_FALSE(m.ok());
  if (inv.available) {
    EXPECT_TRUE(absl::StrContains(m.status().message(), "CUDA device 64 does not exist")) << m.status();
  } else {
    EXPECT_TRUE(absl::StrContains(m.status().message(), "no CUDA device")) << m.status();
  }
  EXPECT_EQ(name, "unchanged");
}

}  // namespace
}  // namespace macro
