// The shared CUDA case body on a fake kernel (no device needed): the timed runs are the manual
// times, the warm-up is untimed, and any error (setup, warm-up, a timed run) ends the case as
// an error, never a number. Without a device, RegisterCudaCase registers nothing and counts.
#include "micro/common/cuda_case.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "micro/common/collecting_reporter.h"

namespace micro {
namespace {

struct FakeKernel {
  int* calls = nullptr;  // outlives the kernel (TimeCudaKernel destroys it before returning)
  int fail_at = -1;      // the call (0 = first) that fails, or -1
  std::string TimeOnce(double* seconds) {
    const int n = (*calls)++;
    if (n == fail_at) return "cudaEventSynchronize failed: fake";
    *seconds = 0.002;
    return "";
  }
};

struct Outcome {
  bool returned = false;
  CudaCaseTiming timing;
  int kernel_calls = 0;
  int trials = 0;
};

// Runs one case built on TimeCudaKernel and returns what the reporter saw.
CollectedRun RunFake(const std::string& name, std::string setup_error, int fail_at, CudaWarmUp warm,
                     Outcome* out) {
  benchmark::RegisterBenchmark(
      name.c_str(),
      [=](benchmark::State& state) {
        std::optional<CudaCaseTiming> t = TimeCudaKernel(
            state, "Fake GPU", "", warm,
            [&](const std::string& device, std::string* error) -> std::unique_ptr<FakeKernel> {
              EXPECT_EQ(device, "Fake GPU");
              if (!setup_error.empty()) {
                *error = setup_error;
                return nullptr;
              }
              auto k = std::make_unique<FakeKernel>();
              k->fail_at = fail_at;
              k->calls = &out->kernel_calls;
              return k;
            },
            [&](double seconds) {
              EXPECT_EQ(seconds, 0.002);
              ++out->trials;
            });
        out->returned = t.has_value();
        if (t) out->timing = *t;
      })
      ->UseManualTime()
      ->Iterations(5);
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter, "^" + name + "/");
  EXPECT_EQ(reporter.runs().size(), 1u);
  return reporter.runs().empty() ? CollectedRun{} : reporter.runs()[0];
}

TEST(CudaCaseTest, TimedRunsAreTheManualTimeAfterAnUntimedWarmUp) {
  Outcome o;
  const CollectedRun run = RunFake("BM_FakeGood", "", -1, CudaWarmUp::kOnce, &o);
  ASSERT_FALSE(run.error) << run.error_message;
  ASSERT_TRUE(o.returned);
  EXPECT_EQ(o.timing.device, "Fake GPU");
  EXPECT_EQ(o.timing.iterations, 5);
  EXPECT_DOUBLE_EQ(o.timing.total_s, 5 * 0.002);
  EXPECT_DOUBLE_EQ(o.timing.SecondsPerIteration(), 0.002);
  EXPECT_EQ(o.trials, 5);
  EXPECT_EQ(o.kernel_calls, 6);  // the warm-up and 5 timed runs
}

TEST(CudaCaseTest, NoWarmUpWhenAsked) {
  Outcome o;
  const CollectedRun run = RunFake("BM_FakeCold", "", -1, CudaWarmUp::kNone, &o);
  ASSERT_FALSE(run.error) << run.error_message;
  EXPECT_EQ(o.kernel_calls, 5);
}

// An error in the setup, the warm-up or a timed run: the case ends as that error, no timing.
TEST(CudaCaseTest, AnyErrorIsACaseError) {
  struct ErrorCase {
    const char* name;
    const char* setup_error;  // "" for none
    int fail_at;              // the kernel call (0 = the warm-up) that fails, or -1
    const char* message;      // the case's error
    int trials;               // timed runs before the error
  };
  const ErrorCase kCases[] = {
      {"BM_FakeSetup", "incorrect bf16 matmul at (3, 4)", -1, "incorrect bf16 matmul at (3, 4)", 0},
      {"BM_FakeWarm", "", 0, "cudaEventSynchronize failed: fake", 0},
      {"BM_FakeTimed", "", 3, "cudaEventSynchronize failed: fake", 2},  // calls 1, 2 timed; 3 failed
  };
  for (const ErrorCase& c : kCases) {
    SCOPED_TRACE(c.name);
    Outcome o;
    const CollectedRun run = RunFake(c.name, c.setup_error, c.fail_at, CudaWarmUp::kOnce, &o);
    EXPECT_TRUE(run.error);
    EXPECT_EQ(run.error_message, c.message);
    EXPECT_FALSE(o.returned);
    EXPECT_EQ(o.trials, c.trials);
  }
}

TEST(CudaCaseTest, RegistersOnlyWithAUsableDevice) {
  RegisteredCases cases;
  auto* b =
      RegisterCudaCase(&cases, "BM_FakeCuda/registered_only_with_a_device", [](benchmark::State& state) {
        for (auto _ : state) {
        }
      });
  const std::string no_cuda = CudaSkipReason();
  if (no_cuda.empty()) {
    EXPECT_NE(b, nullptr);
    EXPECT_EQ(cases.names.size(), 1u);
    EXPECT_EQ(cases.cuda_left_out, 0);
  } else {
    EXPECT_EQ(b, nullptr);
    EXPECT_TRUE(cases.names.empty());
    EXPECT_EQ(cases.cuda_left_out, 1);
    EXPECT_EQ(cases.left_out_reason, no_cuda);
    EXPECT_EQ(no_cuda.rfind("no CUDA device: ", 0), 0u) << no_cuda;
  }
}

}  // namespace
}  // namespace micro
