// A tiny Google Benchmark binary for testing tools/bench and tools/gate without the real
// micro/macro binaries. Its cases cover what the gate must handle:
//   BM_Fake/cpu/axpy/N:262144   real CPU work (y = a x + y), output checked: verified = 1.
//                               MLBENCH_FAKE_SLOWDOWN=1.25 (test-only) makes it do 25% more
//                               work per iteration, i.e. run ~25% slower, for the detection
//                               experiment (tools/gate/gate_detection_experiment.sh).
//   BM_Fake/cpu/tokens          a higher-is-better counter, tokens_per_second (kIsRate).
//   BM_Fake/cpu/unverified      output check failed: verified = 0 (never gated on).
//   BM_Fake/cuda/skipped        skipped (harness/skip.h), as a CUDA case without a GPU.
// Its main is the project's (harness/benchmark_main.h): exit 2 when the unverified case runs.
//   MLBENCH_FAKE_SLOWDOWN_SIDE=current|base (test-only) limits the slowdown to one side of an
//   A/B run (tools/bench sets MLBENCH_AB_SIDE in each child).
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "harness/benchmark_main.h"
#include "harness/skip.h"

namespace {

double Slowdown() {
  const char* s = std::getenv("MLBENCH_FAKE_SLOWDOWN");
  if (s == nullptr || *s == '\0') return 1.0;
  // In an A/B run (tools/bench sets MLBENCH_AB_SIDE), MLBENCH_FAKE_SLOWDOWN_SIDE=current slows
  // only that side: the binaries are the same, the injected regression is not.
  const char* only = std::getenv("MLBENCH_FAKE_SLOWDOWN_SIDE");
  const char* side = std::getenv("MLBENCH_AB_SIDE");
  if (only != nullptr && *only != '\0' && (side == nullptr || std::string(side) != only)) return 1.0;
  double v = std::atof(s);
  return v >= 1.0 && v <= 10.0 ? v : 1.0;
}

// x, y: (n,)
void Axpy(float a, const float* x, float* y, long n) {
  for (long i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

void BM_FakeAxpy(benchmark::State& state) {
  const long n = state.range(0);
  const long work = std::lround(n * Slowdown());  // elements touched per iteration
  std::vector<float> x(work), y(work);
  for (long i = 0; i < work; ++i) {
    x[i] = 1.0f + (i % 7);
    y[i] = 0.5f * (i % 3);
  }
  // Output check first: one axpy on a copy against the closed form.
  std::vector<float> check(y);
  Axpy(2.0f, x.data(), check.data(), work);
  bool ok = true;
  for (long i = 0; i < work; ++i) ok = ok && check[i] == 2.0f * x[i] + y[i];
  for (auto _ : state) {
    Axpy(1e-7f, x.data(), y.data(), work);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 3 * static_cast<int64_t>(sizeof(float)));
  state.counters["verified"] = ok ? 1 : 0;
}
BENCHMARK(BM_FakeAxpy)->Name("BM_Fake/cpu/axpy")->ArgName("N")->Arg(262144);

void BM_FakeTokens(benchmark::State& state) {
  const int tokens = 4096;
  double acc = 0;
  for (auto _ : state) {
    for (int t = 0; t < tokens; ++t) acc += std::sqrt(static_cast<double>(t));
    benchmark::DoNotOptimize(acc);
  }
  state.counters["tokens_per_second"] =
      benchmark::Counter(static_cast<double>(tokens) * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["verified"] = acc > 0 ? 1 : 0;
}
BENCHMARK(BM_FakeTokens)->Name("BM_Fake/cpu/tokens");

void BM_FakeUnverified(benchmark::State& state) {
  int v = 0;
  for (auto _ : state) benchmark::DoNotOptimize(++v);
  state.counters["verified"] = 0;
}
BENCHMARK(BM_FakeUnverified)->Name("BM_Fake/cpu/unverified");

void BM_FakeCudaSkipped(benchmark::State& state) {
  state.SkipWithError(harness::SkipMessage("no CUDA device: (fake) no driver on this machine").c_str());
  for (auto _ : state) {
  }
}
BENCHMARK(BM_FakeCudaSkipped)->Name("BM_Fake/cuda/skipped");

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  harness::AddRunContext();
  const int rc = harness::RunSelectedBenchmarks("fake_bench");
  benchmark::Shutdown();
  return rc;
}
