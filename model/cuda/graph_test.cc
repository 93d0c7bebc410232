// device_api.h's CUDA graphs: what a capture records is not run until a launch, runs in issue
// order at each launch, and reads device memory as it is at the launch (so per-step values
// written before a replay reach the captured kernels). Built twice like the other *_emu / *_cuda
// tests: graph_emu_test on the emulator's capture (cuda_emu/capture.h), graph_cuda_test on
// cudaStreamBeginCapture / cudaGraphLaunch (skipped without a device). What a capture must
// refuse is graph_death_emu_test's (the emulator's messages).
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "model/cuda/bf16.h"
#include "model/cuda/convert_cuda.h"
#include "model/cuda/device_api.h"
#include "model/cuda/gemm.h"
#include "model/cuda/test_backend.h"

namespace model {
namespace cuda {
namespace {

using test::DeviceBuffer;

constexpr int kN = 64;  // an 8 x 8 matrix

// y (8 x 8) = x^T x in cuBLAS's column-major terms (x: 8 x 8).
GemmSpec SquareSpec() {
  GemmSpec s;
  s.trans_a = true;
  s.m = s.n = s.k = 8;
  s.lda = s.ldb = s.ldc = 8;
  return s;
}

std::vector<float> HostSquare(const std::vector<float>& x) {
  std::vector<float> y(kN, 0.0f);
  for (int j = 0; j < 8; ++j) {
    for (int i = 0; i < 8; ++i) {
      double acc = 0;
      for (int l = 0; l < 8; ++l) acc += static_cast<double>(x[l + i * 8]) * x[l + j * 8];
      y[i + j * 8] = static_cast<float>(acc);
    }
  }
  return y;
}

std::vector<float> Ramp(float start) {
  std::vector<float> v(kN);
  for (int i = 0; i < kN; ++i) v[i] = start + 0.25f * static_cast<float>(i % 9);
  return v;
}

// The graph of the test: a memset, a kernel, a device copy that must see the memset, a GEMM.
struct Buffers {
  DeviceBuffer<float> x{Ramp(1.0f)}, zeroed{Ramp(5.0f)}, copied{Ramp(6.0f)}, squared{Ramp(7.0f)};
  DeviceBuffer<Bf16> rounded{kN};
};

void IssueWork(Buffers& b, GemmRunner& gemm) {
  MemsetAsync(b.zeroed.get(), 0, kN * 4);
  convert_to_bf16(b.rounded.get(), b.x.get(), kN);
  CopyDeviceToDevice(b.copied.get(), b.zeroed.get(), kN * 4);
  GemmPointers p;
  p.a = b.x.get();
  p.b = b.x.get();
  p.d = b.squared.get();
  gemm.Run(SquareSpec(), p);
}

void ExpectResultsOf(const Buffers& b, const std::vector<float>& x) {
  EXPECT_EQ(b.zeroed.Download(), std::vector<float>(kN, 0.0f));
  EXPECT_EQ(b.copied.Download(), std::vector<float>(kN, 0.0f));  // copied after the memset
  EXPECT_EQ(test::ToFloats(b.rounded.Download()), test::Quantized<Bf16>(x));
  EXPECT_LE(test::MaxRelErr(b.squared.Download(), HostSquare(x)), 1e-6);  // fp32, small integers
}

TEST(GraphTest, CaptureRecordsAndEachLaunchReplaysWithTheMemoryOfThatMoment) {
  SKIP_WITHOUT_DEVICE();
  std::unique_ptr<GemmRunner> gemm = test::MakeGemmRunner();
  Buffers b;
  // One uncaptured GEMM first: cuBLASLt allocates its workspace at its first call, which a
  // capture must not do (the model's first train step is uncaptured for the same reason).
  {
    Buffers warm;
    IssueWork(warm, *gemm);
    DeviceSynchronize();
  }
  EXPECT_FALSE(GraphCapturing());
  ASSERT_EQ(BeginGraphCapture(), "");
  EXPECT_TRUE(GraphCapturing());
  IssueWork(b, *gemm);
  std::string error;
  DeviceGraphPtr graph = EndGraphCapture(&error);
  ASSERT_NE(graph, nullptr) << error;
  EXPECT_FALSE(GraphCapturing());

  // Nothing ran during the capture.
  EXPECT_EQ(b.zeroed.Download(), Ramp(5.0f));
  EXPECT_EQ(b.copied.Download(), Ramp(6.0f));
  EXPECT_EQ(b.squared.Download(), Ramp(7.0f));

  LaunchGraph(*graph);
  ExpectResultsOf(b, Ramp(1.0f));

  // New input and dirty outputs: the second launch reads and writes memory as it is now.
  const std::vector<float> x2 = Ramp(-3.0f);
  b.x.Upload(x2);
  b.zeroed.Upload(Ramp(9.0f));
  b.copied.Upload(Ramp(9.0f));
  LaunchGraph(*graph);
  ExpectResultsOf(b, x2);
}

TEST(GraphTest, SecondBeginIsAnErrorAndEndWithoutBeginToo) {
  SKIP_WITHOUT_DEVICE();
  std::string error;
  EXPECT_EQ(EndGraphCapture(&error), nullptr);
  EXPECT_FALSE(error.empty());
  ASSERT_EQ(BeginGraphCapture(), "");
  EXPECT_NE(BeginGraphCapture(), "");
  error.clear();
  DeviceGraphPtr graph = EndGraphCapture(&error);  // an empty graph, or the invalidated capture
  EXPECT_FALSE(GraphCapturing());
}

}  // namespace
}  // namespace cuda
}  // namespace model
