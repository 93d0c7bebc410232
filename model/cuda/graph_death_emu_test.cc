// What a CUDA graph capture cannot hold, on the emulator's capture (cuda_emu/capture.h): a
// synchronous copy, a device synchronize or an allocation inside a capture aborts, naming the
// call. Emulator only, by construction (no CUDA build of it): a GPU fails such a capture with
// its own errors (cudaErrorStreamCaptureUnsupported / Invalidated, which CUDA_CHECK turns into
// an abort), whose messages are the driver's. It used to sit in graph_test.cc and skip itself in
// the CUDA build, and gpu_check turns any skipped test into a FAIL.
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/device_api.h"
#include "model/cuda/test_backend.h"

namespace model {
namespace cuda {
namespace {

using test::DeviceBuffer;

constexpr int kN = 64;

TEST(GraphDeathTest, SynchronousCallsInsideACaptureAbort) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  DeviceBuffer<float> x(std::vector<float>(kN, 1.0f));
  std::vector<float> host(kN);
  EXPECT_DEATH(
      {
        BeginGraphCapture();
        CopyToHost(host.data(), x.get(), kN * 4);
      },
      "CopyToHost .* not allowed while capturing");
  EXPECT_DEATH(
      {
        BeginGraphCapture();
        CopyToDevice(x.get(), host.data(), kN * 4);
      },
      "CopyToDevice .* not allowed while capturing");
  EXPECT_DEATH(
      {
        BeginGraphCapture();
        DeviceSynchronize();
      },
      "DeviceSynchronize is not allowed while capturing");
  EXPECT_DEATH(
      {
        BeginGraphCapture();
        void* p = nullptr;
        DeviceAlloc(&p, 256);
      },
      "DeviceAlloc .* not allowed while capturing");
}

}  // namespace
}  // namespace cuda
}  // namespace model
