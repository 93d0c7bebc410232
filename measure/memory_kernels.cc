// The memory roofs' kernels (memory_kernels.h): one serial loop per kind over a range of the
// arrays, and the parallel kernels as every thread running it over its own static slice.
#include "measure/memory_kernels.h"

#include <immintrin.h>
#include <omp.h>

namespace micro {
namespace {

#if defined(__AVX__)
constexpr int64_t kNtLanes = 8;
#else
constexpr int64_t kNtLanes = 4;
#endif
// Slices start on 64-byte lines, so that write_nt's aligned stores stay aligned.
constexpr int64_t kSliceAlign = 16;
// The read kernel's software prefetch distance: 2 KiB a stream.
constexpr int64_t kReadPrefetchFloats = 512;
// ... on slices of at least 4 MiB (past the private caches of the CPUs measured).
constexpr int64_t kReadPrefetchMinFloats = int64_t{1} << 20;

double SerialRead(const float* __restrict a, int64_t lo, int64_t hi) {
  // kReadStreams interleaved streams: one stream a core reads 20-35% slower than the memory can
  // deliver (22-27 against 30-41 GB/s on a 2-core Zen 3 VM), because one stream keeps too few
  // misses in flight; and the eight terms added as a tree leave one dependent add per 8 vector
  // loads, so in cache the sum is not bound by the add's latency either. Written out: as an inner
  // loop over the streams GCC at -O2 kept it a loop and read at half the rate (15 against 30 GB/s).
  static_assert(kReadStreams == 8, "the loop below sums 8 streams");
  // Each stream starts on a 64-byte line (q a multiple of 16 floats): misaligned streams split
  // loads across two lines and halve what L1 delivers.
  const int64_t q = (hi - lo) / (kReadStreams * kSliceAlign) * kSliceAlign;
  const float* __restrict a0 = a + lo;
  const float* __restrict a1 = a0 + q;
  const float* __restrict a2 = a0 + 2 * q;
  const float* __restrict a3 = a0 + 3 * q;
  const float* __restrict a4 = a0 + 4 * q;
  const float* __restrict a5 = a0 + 5 * q;
  const float* __restrict a6 = a0 + 6 * q;
  const float* __restrict a7 = a0 + 7 * q;
  // Each stream also asks for the line kReadPrefetchFloats ahead, once a line, as decode's
  // matrix-vector loops do (model/matvec_cpu.cc): on the Intel Xeon (AMX) VM the hardware
  // prefetchers alone read 31-32 GB/s here and 33-34.5 with it; a roof below what decode reads
  // would not be a bound.
  float s = 0;
  // In L1 and L2 the prefetches would only take load slots.
  const bool prefetch = q * kReadStreams >= kReadPrefetchMinFloats;
  if (!prefetch) {
#pragma omp simd reduction(+ : s)
    for (int64_t i = 0; i < q; ++i) s += ((a0[i] + a1[i]) + (a2[i] + a3[i])) + ((a4[i] + a5[i]) + (a6[i] + a7[i]));
  }
  for (int64_t i0 = 0; prefetch && i0 < q; i0 += kSliceAlign) {
    __builtin_prefetch(a0 + i0 + kReadPrefetchFloats);
    __builtin_prefetch(a1 + i0 + kReadPrefetchFloats);
    __builtin_prefetch(a2 + i0 + kReadPrefetchFloats);
    __builtin_prefetch(a3 + i0 + kReadPrefetchFloats);
    __builtin_prefetch(a4 + i0 + kReadPrefetchFloats);
    __builtin_prefetch(a5 + i0 + kReadPrefetchFloats);
    __builtin_prefetch(a6 + i0 + kReadPrefetchFloats);
    __builtin_prefetch(a7 + i0 + kReadPrefetchFloats);
#pragma omp simd reduction(+ : s)
    for (int64_t i = i0; i < i0 + kSliceAlign; ++i) {
      s += ((a0[i] + a1[i]) + (a2[i] + a3[i])) + ((a4[i] + a5[i]) + (a6[i] + a7[i]));
    }
  }
  for (int64_t i = lo + q * kReadStreams; i < hi; ++i) s += a[i];
  return s;
}

// lo a multiple of kSliceAlign (a 64-byte aligned array stays aligned).
void SerialWriteNt(float* a, float v, int64_t lo, int64_t hi) {
  const int64_t vectors = (hi - lo) / kNtLanes;
#if defined(__AVX__)
  const __m256 x = _mm256_set1_ps(v);
  for (int64_t i = 0; i < vectors; ++i) _mm256_stream_ps(a + lo + i * kNtLanes, x);
#else
  const __m128 x = _mm_set1_ps(v);
  for (int64_t i = 0; i < vectors; ++i) _mm_stream_ps(a + lo + i * kNtLanes, x);
#endif
  _mm_sfence();
  for (int64_t i = lo + vectors * kNtLanes; i < hi; ++i) a[i] = v;
}

void SerialCopy(float* __restrict b, const float* __restrict a, int64_t lo, int64_t hi) {
#pragma omp simd
  for (int64_t i = lo; i < hi; ++i) b[i] = a[i];
}

void SerialTriad(float* __restrict a, const float* __restrict b, const float* __restrict c, float s, int64_t lo,
                 int64_t hi) {
#pragma omp simd
  for (int64_t i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
}

void SerialInPlace(float* __restrict a, float* __restrict b, const float* __restrict c, float s, float t,
                   int64_t lo, int64_t hi) {
#pragma omp simd
  for (int64_t i = lo; i < hi; ++i) {
    const float ci = c[i];
    a[i] = s * a[i] + ci;
    b[i] = t * b[i] + ci * ci;
  }
}

// This thread's static slice of n elements among `threads`, its ends on kSliceAlign.
void Slice(int64_t n, int thread, int threads, int64_t* lo, int64_t* hi) {
  auto edge = [&](int t) { return t >= threads ? n : (n * t / threads) / kSliceAlign * kSliceAlign; };
  *lo = edge(thread);
  *hi = edge(thread + 1);
}

// Runs fn(lo, hi) on every thread of one parallel region, over its own slice of n elements.
template <typename Fn>
void OnEverySlice(int64_t n, Fn fn) {
#pragma omp parallel
  {
    int64_t lo = 0, hi = 0;
    Slice(n, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
    fn(lo, hi);
  }
}

}  // namespace

double TrafficKernelRange(accounting::TrafficKind kind, const TrafficArrays& x, int64_t lo, int64_t hi) {
  using accounting::TrafficKind;
  switch (kind) {
    case TrafficKind::kRead:
      return SerialRead(x.a, lo, hi);
    case TrafficKind::kWriteNt:
      SerialWriteNt(x.a, kWriteNtValue, lo, hi);
      return 0;
    case TrafficKind::kCopy:
      SerialCopy(x.b, x.a, lo, hi);
      return 0;
    case TrafficKind::kTriad:
      SerialTriad(x.a, x.b, x.c, kTriadScalar, lo, hi);
      return 0;
    case TrafficKind::kInPlace:
      SerialInPlace(x.a, x.b, x.c, kInPlaceS, kInPlaceT, lo, hi);
      return 0;
  }
  return 0;
}

double RepeatTrafficKernel(accounting::TrafficKind kind, const TrafficArrays& x, int64_t reps) {
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    int64_t lo = 0, hi = 0;
    Slice(x.n, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
    for (int64_t r = 0; r < reps; ++r) total += TrafficKernelRange(kind, x, lo, hi);
  }
  return total;
}

double RunTrafficKernel(accounting::TrafficKind kind, const TrafficArrays& x) {
  return RepeatTrafficKernel(kind, x, 1);
}

double ReadSum(const float* a, int64_t n) {
  return RunTrafficKernel(accounting::TrafficKind::kRead, {const_cast<float*>(a), nullptr, nullptr, n});
}
void WriteNt(float* a, float v, int64_t n) {
  OnEverySlice(n, [&](int64_t lo, int64_t hi) { SerialWriteNt(a, v, lo, hi); });
}
void StreamCopy(float* b, const float* a, int64_t n) {
  OnEverySlice(n, [&](int64_t lo, int64_t hi) { SerialCopy(b, a, lo, hi); });
}
void StreamTriad(float* a, const float* b, const float* c, float s, int64_t n) {
  OnEverySlice(n, [&](int64_t lo, int64_t hi) { SerialTriad(a, b, c, s, lo, hi); });
}
void InPlaceUpdate(float* a, float* b, const float* c, float s, float t, int64_t n) {
  OnEverySlice(n, [&](int64_t lo, int64_t hi) { SerialInPlace(a, b, c, s, t, lo, hi); });
}

double TrafficKernelBytes(accounting::TrafficKind kind, int64_t n) {
  return accounting::KernelCountedBytesPerElement(kind) * static_cast<double>(n);
}

}  // namespace micro
