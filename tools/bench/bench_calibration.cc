// //tools:bench_calibration: fixed reference workloads that tools/bench measures in every
// round of a run, beside the real cases, so tools/gate can normalise a case's metric by how
// fast this (shared, noisy) machine was during that run (see gate_compare.h, "Calibration").
// The work never changes with the code under test; only the machine's state moves it.
//   BM_Calibration/cpu/fma     compute: a register-resident FMA recurrence on every core.
//   BM_Calibration/cpu/stream  memory: a STREAM-style triad over 3 x 32 MiB (past the L3) on
//                              every core.
// Both run on as many threads as the cases beside them (GB ->Threads: MLBENCH_THREADS, which
// tools/bench --threads sets, else one per logical CPU) and are timed in real time.
#include <cmath>
#include <cstdlib>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"

namespace {

// As many threads as the benchmarks beside it use: MLBENCH_THREADS (set by tools/bench
// --threads), else one per logical CPU.
int Cpus() {
  if (const char* t = std::getenv("MLBENCH_THREADS"); t != nullptr && std::atoi(t) > 0) return std::atoi(t);
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

void BM_CalibrationFma(benchmark::State& state) {
  constexpr int kLanes = 64;  // independent chains: enough to fill the FMA pipes
  constexpr int kSteps = 4096;
  float acc[kLanes];
  for (int i = 0; i < kLanes; ++i) acc[i] = 0.001f * i;
  const float a = 0.999f, b = 0.001f;
  for (auto _ : state) {
    for (int s = 0; s < kSteps; ++s) {
      for (int i = 0; i < kLanes; ++i) acc[i] = std::fma(acc[i], a, b);
    }
    benchmark::DoNotOptimize(acc);
  }
  // The recurrence converges to b / (1 - a) = 1 from below; anything else is a wrong result.
  bool ok = true;
  for (float v : acc) ok = ok && std::isfinite(v) && v > 0.0f && v < 1.001f;
  // kAvgThreads: every thread sets it, and one failing thread must give < 1 (gate_compare.h).
  state.counters["verified"] = benchmark::Counter(ok ? 1 : 0, benchmark::Counter::kAvgThreads);
  state.SetItemsProcessed(state.iterations() * kLanes * kSteps * 2);  // FLOPs
}
BENCHMARK(BM_CalibrationFma)->Name("BM_Calibration/cpu/fma")->Threads(Cpus())->UseRealTime();

void BM_CalibrationStream(benchmark::State& state) {
  // Each thread takes its share of 3 arrays of 32 MiB: a[i] = b[i] + s c[i].
  const long total = 8L << 20;  // floats per array (32 MiB)
  const long n = total / state.threads();
  std::vector<float> a(n, 0.0f), b(n), c(n);
  for (long i = 0; i < n; ++i) {
    b[i] = 1.0f + (i % 5);
    c[i] = 0.5f * (i % 3);
  }
  const float s = 3.0f;
  for (auto _ : state) {
    for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  bool ok = true;
  for (long i = 0; i < n; i += 4099) ok = ok && a[i] == b[i] + s * c[i];
  state.counters["verified"] = benchmark::Counter(ok ? 1 : 0, benchmark::Counter::kAvgThreads);
  state.SetBytesProcessed(state.iterations() * n * 3 * static_cast<int64_t>(sizeof(float)));
}
BENCHMARK(BM_CalibrationStream)->Name("BM_Calibration/cpu/stream")->Threads(Cpus())->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
