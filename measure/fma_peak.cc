// The FMA loops of fma_peak.h, written with intrinsics under target attributes so the AVX-512
// variant exists even in a build for a CPU without it (it is then reported unsupported at run
// time, never executed).
#include "measure/fma_peak.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"

namespace micro {
namespace {

// A trial does at least this much work per thread (~10 ms at 100 GFLOP/s per core), so that
// waking the OpenMP workers (milliseconds when another process holds the other core) stays
// small against it. Probes alone are not enough: on a busy machine every probe can be slow,
// and scaling from them once shrank trials to microseconds and the "peak" to 0.7 GFLOP/s.
constexpr int64_t kMinFlopsPerThreadPerTrial = int64_t{1} << 30;

constexpr int kAvx2Chains = 12;    // 12 ymm accumulators + a + b = 14 of 16 registers
constexpr int kAvx512Chains = 24;  // 24 zmm accumulators + a + b = 26 of 32 registers

// The accumulators live in named locals rather than an array so they stay in registers.
#define MICRO_FMA_STEP(F, x) x = F(x, va, vb)

__attribute__((target("avx2,fma"))) float FmaLoopAvx2(int64_t steps, float a, float b) {
  const __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
  __m256 c0 = _mm256_set1_ps(b + 0.01f), c1 = _mm256_set1_ps(b + 0.02f), c2 = _mm256_set1_ps(b + 0.03f),
         c3 = _mm256_set1_ps(b + 0.04f), c4 = _mm256_set1_ps(b + 0.05f), c5 = _mm256_set1_ps(b + 0.06f),
         c6 = _mm256_set1_ps(b + 0.07f), c7 = _mm256_set1_ps(b + 0.08f), c8 = _mm256_set1_ps(b + 0.09f),
         c9 = _mm256_set1_ps(b + 0.10f), c10 = _mm256_set1_ps(b + 0.11f), c11 = _mm256_set1_ps(b + 0.12f);
  for (int64_t s = 0; s < steps; ++s) {
    MICRO_FMA_STEP(_mm256_fmadd_ps, c0);
    MICRO_FMA_STEP(_mm256_fmadd_ps, c1);
    MICRO_FMA_STEP(_mm256_fmadd_ps, c2);
    MICRO_FMA_STEP(_mm256_fmadd_ps, c3);
    MICRO_FMA_STEP(_mm256_fmadd_ps, c4);
    MICRO_FMA_STEP(_mm256_fmadd_ps, c5);
    MICRO_FMA_STEP(_mm256_fmadd_ps, c6);
    MICRO_FMA_STEP(_mm256_fmadd_ps, c7);
    MICRO_FMA_STEP(_mm256_fmadd_ps, c8);
    MICRO_FMA_STEP(_mm256_fmadd_ps, c9);
    MICRO_FMA_STEP(_mm256_fmadd_ps, c10);
    MICRO_FMA_STEP(_mm256_fmadd_ps, c11);
  }
  __m256 s0 = _mm256_add_ps(_mm256_add_ps(c0, c1), _mm256_add_ps(c2, c3));
  __m256 s1 = _mm256_add_ps(_mm256_add_ps(c4, c5), _mm256_add_ps(c6, c7));
  __m256 s2 = _mm256_add_ps(_mm256_add_ps(c8, c9), _mm256_add_ps(c10, c11));
  __m256 sum = _mm256_add_ps(_mm256_add_ps(s0, s1), s2);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

__attribute__((target("avx512f"))) float FmaLoopAvx512(int64_t steps, float a, float b) {
  const __m512 va = _mm512_set1_ps(a), vb = _mm512_set1_ps(b);
  __m512 c0 = _mm512_set1_ps(b + 0.01f), c1 = _mm512_set1_ps(b + 0.02f), c2 = _mm512_set1_ps(b + 0.03f),
         c3 = _mm512_set1_ps(b + 0.04f), c4 = _mm512_set1_ps(b + 0.05f), c5 = _mm512_set1_ps(b + 0.06f),
         c6 = _mm512_set1_ps(b + 0.07f), c7 = _mm512_set1_ps(b + 0.08f), c8 = _mm512_set1_ps(b + 0.09f),
         c9 = _mm512_set1_ps(b + 0.10f), c10 = _mm512_set1_ps(b + 0.11f), c11 = _mm512_set1_ps(b + 0.12f),
         c12 = _mm512_set1_ps(b + 0.13f), c13 = _mm512_set1_ps(b + 0.14f), c14 = _mm512_set1_ps(b + 0.15f),
         c15 = _mm512_set1_ps(b + 0.16f), c16 = _mm512_set1_ps(b + 0.17f), c17 = _mm512_set1_ps(b + 0.18f),
         c18 = _mm512_set1_ps(b + 0.19f), c19 = _mm512_set1_ps(b + 0.20f), c20 = _mm512_set1_ps(b + 0.21f),
         c21 = _mm512_set1_ps(b + 0.22f), c22 = _mm512_set1_ps(b + 0.23f), c23 = _mm512_set1_ps(b + 0.24f);
  for (int64_t s = 0; s < steps; ++s) {
    MICRO_FMA_STEP(_mm512_fmadd_ps, c0);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c1);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c2);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c3);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c4);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c5);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c6);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c7);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c8);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c9);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c10);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c11);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c12);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c13);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c14);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c15);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c16);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c17);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c18);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c19);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c20);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c21);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c22);
    MICRO_FMA_STEP(_mm512_fmadd_ps, c23);
  }
  __m512 s0 = _mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3));
  __m512 s1 = _mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7));
  __m512 s2 = _mm512_add_ps(_mm512_add_ps(c8, c9), _mm512_add_ps(c10, c11));
  __m512 s3 = _mm512_add_ps(_mm512_add_ps(c12, c13), _mm512_add_ps(c14, c15));
  __m512 s4 = _mm512_add_ps(_mm512_add_ps(c16, c17), _mm512_add_ps(c18, c19));
  __m512 s5 = _mm512_add_ps(_mm512_add_ps(c20, c21), _mm512_add_ps(c22, c23));
  __m512 sum =
      _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)), _mm512_add_ps(s4, s5));
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

#undef MICRO_FMA_STEP

// Runtime operands: a volatile read the optimiser cannot see through. acc * a + b with
// a < 1 converges to b / (1 - a), so the accumulators stay finite and normal.
volatile float g_fma_a = 0.999999f;
volatile float g_fma_b = 1e-3f;

}  // namespace

const char* FmaIsaName(FmaIsa isa) { return isa == FmaIsa::kAvx512 ? "AVX-512" : "AVX2"; }

bool FmaIsaSupported(FmaIsa isa) {
  __builtin_cpu_init();
  if (isa == FmaIsa::kAvx512) return __builtin_cpu_supports("avx512f");
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

int64_t FmaFlopsPerStep(FmaIsa isa) {
  return isa == FmaIsa::kAvx512 ? int64_t{kAvx512Chains} * 16 * 2 : int64_t{kAvx2Chains} * 8 * 2;
}

absl::StatusOr<FmaPeakResult> RunFmaLoop(FmaIsa isa, int64_t steps, int threads) {
  if (!FmaIsaSupported(isa)) {
    return absl::FailedPreconditionError(absl::StrCat("this CPU does not support ", FmaIsaName(isa), " FMA"));
  }
  if (steps < 1) return absl::InvalidArgumentError(absl::StrCat("steps = ", steps, "; need >= 1"));
  if (threads < 0) {
    return absl::InvalidArgumentError(absl::StrCat("threads = ", threads, "; need >= 0 (0: all)"));
  }
  const int nthreads = threads == 0 ? omp_get_max_threads() : threads;
  const float a = g_fma_a, b = g_fma_b;
  std::vector<float> sums(nthreads, 0.f);
  std::chrono::steady_clock::time_point start, stop;
#pragma omp parallel num_threads(nthreads)
  {
#pragma omp barrier
#pragma omp single
    start = std::chrono::steady_clock::now();
    // (the implicit barrier after `single` lines the threads up again)
    const int t = omp_get_thread_num();
    sums[t] = isa == FmaIsa::kAvx512 ? FmaLoopAvx512(steps, a, b) : FmaLoopAvx2(steps, a, b);
#pragma omp barrier
#pragma omp single
    stop = std::chrono::steady_clock::now();
  }
  FmaPeakResult r;
  r.isa = isa;
  r.threads = nthreads;
  r.seconds = std::chrono::duration<double>(stop - start).count();
  r.flops = static_cast<double>(FmaFlopsPerStep(isa)) * static_cast<double>(steps) * nthreads;
  r.flops_per_s = r.seconds > 0 ? r.flops / r.seconds : 0;
  for (float s : sums) r.checksum += s;
  if (!std::isfinite(r.checksum)) {
    return absl::InternalError(absl::StrCat("FMA loop checksum is not finite: ", r.checksum));
  }
  return r;
}

int64_t MinFmaSteps(FmaIsa isa) { return kMinFlopsPerThreadPerTrial / FmaFlopsPerStep(isa); }

absl::StatusOr<int64_t> CalibrateFmaSteps(FmaIsa isa, double seconds_per_trial, int threads) {
  if (!(seconds_per_trial > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("seconds_per_trial = ", seconds_per_trial, "; need > 0"));
  }
  // Start the OpenMP thread pool first: its creation would make the first probe look slow.
  absl::StatusOr<FmaPeakResult> warm = RunFmaLoop(isa, 1, threads);
  if (!warm.ok()) return warm.status();
  int64_t steps = 1 << 12;
  while (true) {
    double fastest = 0;
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<FmaPeakResult> r = RunFmaLoop(isa, steps, threads);
      if (!r.ok()) return r.status();
      if (i == 0 || r->seconds < fastest) fastest = r->seconds;
    }
    if (fastest >= 1e-3 || steps >= (int64_t{1} << 40)) {
      const double scaled = static_cast<double>(steps) * seconds_per_trial / fastest;
      return std::max<int64_t>({steps, static_cast<int64_t>(scaled), MinFmaSteps(isa)});
    }
    steps *= 4;
  }
}

absl::StatusOr<FmaPeakResult> MeasureFmaPeak(FmaIsa isa, double seconds_per_trial, int trials, int threads) {
  if (!(seconds_per_trial > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("seconds_per_trial = ", seconds_per_trial, "; need > 0"));
  }
  if (trials < 1) return absl::InvalidArgumentError(absl::StrCat("trials = ", trials, "; need >= 1"));
  absl::StatusOr<int64_t> steps = CalibrateFmaSteps(isa, seconds_per_trial, threads);
  if (!steps.ok()) return steps.status();
  FmaPeakResult best;
  for (int i = 0; i < trials; ++i) {
    absl::StatusOr<FmaPeakResult> r = RunFmaLoop(isa, *steps, threads);
    if (!r.ok()) return r.status();
    if (r->flops_per_s > best.flops_per_s) best = *r;
  }
  return best;
}

}  // namespace micro
