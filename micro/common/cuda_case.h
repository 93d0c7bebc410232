// What every CUDA case of the micro benchmarks shares (matmul, elementwise, ceilings):
//  - registration: CUDA cases are registered only when the probe (sysinfo/cuda_info) found a
//    usable device; elsewhere they are counted, and the binary says in one line on stderr how
//    many were left out and why (a filter that selects only them then fails with that reason,
//    harness/benchmark_main.h);
//  - the body: skip when no device is usable, the device's name, create and check the kernel,
//    one untimed warm-up, then the timed loop (manual time: each iteration is one timed run).
#ifndef MICRO_COMMON_CUDA_CASE_H_
#define MICRO_COMMON_CUDA_CASE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "harness/skip.h"
#include "micro/common/bench_common.h"
#include "micro/common/cuda_device.h"

namespace micro {

// The cases one binary registered, and the CUDA cases it left out.
struct RegisteredCases {
  std::vector<std::string> names;  // registered, without the /manual_time suffix
  int64_t cuda_left_out = 0;       // CUDA cases not registered: no usable device
  std::string left_out_reason;     // CudaSkipReason() when cuda_left_out > 0
};

// Registers `fn` as the CUDA case `name` when a CUDA device is usable and returns it (for
// ->UseManualTime() etc.); else counts it in `cases` and returns nullptr.
benchmark::internal::Benchmark* RegisterCudaCase(RegisteredCases* cases, const std::string& name,
                                                 std::function<void(benchmark::State&)> fn);

// "<binary>: N CUDA case(s) not registered: no CUDA device: <reason>" on stderr when any were
// left out, and the same note to harness::SetLeftOutNote. Nothing when none were.
void ReportLeftOutCases(const std::string& binary, const RegisteredCases& cases);

// What the timed loop measured.
struct CudaCaseTiming {
  std::string device;        // the CUDA device's name
  double total_s = 0;        // sum of the timed runs
  int64_t iterations = 0;
  double SecondsPerIteration() const { return iterations > 0 ? total_s / iterations : 0; }
};

enum class CudaWarmUp { kOnce, kNone };

// The timed part of a CUDA case, after the probe (tests drive it with a fake kernel):
// `setup(device, &error)` returns the kernel (a pointer-like, e.g. std::unique_ptr<K>) created,
// run once and checked against its reference, or sets `error`; then one untimed
// kernel->TimeOnce when `warm` is kOnce (cuBLAS heuristics, clocks); then each iteration calls
// kernel->TimeOnce(&seconds) ("" or the error), reports the seconds as the manual time and
// passes them to `on_trial`. Any error ends the case as an error on `state` (never a number)
// and returns nullopt.
template <typename Setup, typename OnTrial>
std::optional<CudaCaseTiming> TimeCudaKernel(benchmark::State& state, const std::string& device,
                                             std::string error, CudaWarmUp warm, Setup setup,
                                             OnTrial on_trial) {
  CudaCaseTiming t;
  t.device = device;
  decltype(setup(device, &error)) kernel{};
  if (error.empty()) kernel = setup(device, &error);
  if (error.empty() && !kernel) error = "the CUDA kernel was not created (no error given)";
  if (error.empty() && warm == CudaWarmUp::kOnce) {
    double seconds = 0;
    error = kernel->TimeOnce(&seconds);
  }
  if (!error.empty()) {
    state.SkipWithError(error.c_str());
    return std::nullopt;
  }
  for (auto _ : state) {
    double seconds = 0;
    error = kernel->TimeOnce(&seconds);
    if (!error.empty()) {
      state.SkipWithError(error.c_str());
      break;
    }
    state.SetIterationTime(seconds);
    t.total_s += seconds;
    ++t.iterations;
    on_trial(seconds);
  }
  if (!error.empty()) return std::nullopt;
  return t;
}

// A whole CUDA case: a skip with the probe's reason when no device is usable (the binaries do
// not register CUDA cases then; this guards a direct call), else TimeCudaKernel on the current
// device.
template <typename Setup, typename OnTrial>
std::optional<CudaCaseTiming> RunCudaCase(benchmark::State& state, CudaWarmUp warm, Setup setup,
                                          OnTrial on_trial) {
  const std::string skip = CudaSkipReason();
  if (!skip.empty()) {
    state.SkipWithError(harness::SkipMessage(skip).c_str());
    return std::nullopt;
  }
  std::string error;
  const std::string device = CurrentCudaDeviceName(&error);
  return TimeCudaKernel(state, device, error, warm, setup, on_trial);
}

}  // namespace micro

#endif  // MICRO_COMMON_CUDA_CASE_H_
