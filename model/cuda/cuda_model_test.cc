// MakeCudaModel's checks and errors. Runs everywhere: without a device (or without the
// toolkit) it checks the Unavailable path and its reason; with one, that a model is made.
#include "model/cuda/cuda_model.h"

#include <cmath>
#include <string>

#include "accounting/dtype.h"
#include "gtest/gtest.h"
#include "model/data/batch_source.h"
#include "model/gpt_config.h"
#include "sysinfo/cuda_info.h"

namespace model {
namespace {

GptConfig Tiny() { return *GptPreset("test-tiny"); }

TEST(CudaModel, UnsupportedDtypeIsInvalidArgument) {
  absl::StatusOr<std::unique_ptr<GptModel>> m = MakeCudaModel(Tiny(), 2, 8, 1, accounting::Dtype::kFp16);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(m.status().message());
  EXPECT_NE(msg.find("fp16"), std::string::npos) << msg;
  EXPECT_NE(msg.find("fp32, tf32 or bf16"), std::string::npos) << msg;
}

TEST(CudaModel, InvalidShapeIsInvalidArgument) {
  EXPECT_EQ(MakeCudaModel(Tiny(), 0, 8, 1, accounting::Dtype::kBf16).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeCudaModel(Tiny(), 2, 17, 1, accounting::Dtype::kBf16).status().code(),
            absl::StatusCode::kInvalidArgument);  // block is 16
}

TEST(CudaModel, DescribesMemoryWithoutADevice) {
  absl::StatusOr<std::string> d = DescribeCudaMemory(*GptPreset("gpt2"), 12, 1024, accounting::Dtype::kBf16);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_NE(d->find("bf16 weights"), std::string::npos) << *d;
  EXPECT_NE(d->find("total"), std::string::npos) << *d;
  EXPECT_FALSE(DescribeCudaMemory(Tiny(), 2, 8, accounting::Dtype::kFp8).ok());
}

TEST(CudaModel, UnavailableWithTheProbeReasonOrAWorkingModel) {
  const sysinfo::CudaInventory inv = sysinfo::ProbeCuda();
  absl::StatusOr<std::unique_ptr<GptModel>> m = MakeCudaModel(Tiny(), 2, 8, 1, accounting::Dtype::kBf16);
  if (!inv.available) {
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_NE(std::string(m.status().message()).find(inv.reason), std::string::npos) << m.status();
    std::printf("no CUDA device, as expected here: %s\n", m.status().ToString().c_str());
    return;
  }
  ASSERT_TRUE(m.ok()) << m.status();
  GptModel& model = **m;
  EXPECT_EQ(model.device(), "cuda");
  EXPECT_NE(model.params_data(), nullptr);
  EXPECT_NE(model.grads_data(), nullptr);
  const std::string d = DescribeCudaModel(model);
  EXPECT_NE(d.find("cuda bf16"), std::string::npos) << d;
  EXPECT_NE(d.find("cublasLt"), std::string::npos) << d;
  std::printf("%s\n", d.c_str());
  absl::StatusOr<Batch> random = FixedRandomBatch(/*B=*/2, /*T=*/8, /*vocab=*/60, /*seed=*/3);
  ASSERT_TRUE(random.ok()) << random.status();
  const Batch& batch = *random;
  ASSERT_TRUE(model.Forward(batch).ok());
  EXPECT_NEAR(model.loss(), std::log(60.0f), 0.5f);
  model.ZeroGrad();
  ASSERT_TRUE(model.Backward().ok());
  ASSERT_TRUE(model.Update(AdamWConfig(), 1).ok());
  model.Synchronize();
}

TEST(CudaModel, TooLargeForTheDeviceIsResourceExhausted) {
  const sysinfo::CudaInventory inv = sysinfo::ProbeCuda();
  if (!inv.available) GTEST_SKIP() << "no CUDA device: " << inv.reason;
  absl::StatusOr<std::unique_ptr<GptModel>> m =
      MakeCudaModel(*GptPreset("gpt2"), 4096, 1024, 1, accounting::Dtype::kFp32);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kResourceExhausted);
  const std::string msg(m.status().message());
  EXPECT_NE(msg.find("need"), std::string::npos) << msg;
  EXPECT_NE(msg.find("free"), std::string::npos) << msg;
}

}  // namespace
}  // namespace model
