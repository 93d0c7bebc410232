// The memory roofs' kernels (memory_kernels.h).
#include "measure/memory_kernels.h"

#include <immintrin.h>
#include <omp.h>

namespace micro {

double ReadSum(const float* __restrict a, int64_t n) {
  // kReadStreams interleaved streams per thread: one stream a core reads 20-35% slower than the
  // memory can deliver (22-27 against 30-41 GB/s on a 2-core Zen 3 VM), because one stream keeps
  // too few misses in flight; with several the sum is bound by the memory, as a roof must be. The
  // eight terms are written out: as an inner loop over the streams, GCC at -O2 kept it a loop and
  // the kernel read at half the rate (15 against 30 GB/s).
  static_assert(kReadStreams == 8, "the loop below sums 8 streams");
  const int64_t q = n / kReadStreams;
  const float* __restrict a1 = a + q;
  const float* __restrict a2 = a + 2 * q;
  const float* __restrict a3 = a + 3 * q;
  const float* __restrict a4 = a + 4 * q;
  const float* __restrict a5 = a + 5 * q;
  const float* __restrict a6 = a + 6 * q;
  const float* __restrict a7 = a + 7 * q;
  float s = 0;
#pragma omp parallel for simd schedule(static) reduction(+ : s)
  for (int64_t i = 0; i < q; ++i) s += ((a[i] + a1[i]) + (a2[i] + a3[i])) + ((a4[i] + a5[i]) + (a6[i] + a7[i]));
  for (int64_t i = q * kReadStreams; i < n; ++i) s += a[i];
  return s;
}

#if defined(__AVX__)
constexpr int64_t kNtLanes = 8;
#else
constexpr int64_t kNtLanes = 4;
#endif

void WriteNt(float* a, float v, int64_t n) {
  const int64_t vectors = n / kNtLanes;
#pragma omp parallel
  {
#if defined(__AVX__)
    const __m256 x = _mm256_set1_ps(v);
#else
    const __m128 x = _mm_set1_ps(v);
#endif
#pragma omp for schedule(static)
    for (int64_t i = 0; i < vectors; ++i) {
#if defined(__AVX__)
      _mm256_stream_ps(a + i * kNtLanes, x);
#else
      _mm_stream_ps(a + i * kNtLanes, x);
#endif
    }
    _mm_sfence();
  }
  for (int64_t i = vectors * kNtLanes; i < n; ++i) a[i] = v;
}

void StreamCopy(float* __restrict b, const float* __restrict a, int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) b[i] = a[i];
}

void StreamTriad(float* __restrict a, const float* __restrict b, const float* __restrict c, float s,
                 int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

void InPlaceUpdate(float* __restrict a, float* __restrict b, const float* __restrict c, float s, float t,
                   int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float ci = c[i];
    a[i] = s * a[i] + ci;
    b[i] = t * b[i] + ci * ci;
  }
}

double RunTrafficKernel(accounting::TrafficKind kind, const TrafficArrays& x) {
  using accounting::TrafficKind;
  switch (kind) {
    case TrafficKind::kRead:
      return ReadSum(x.a, x.n);
    case TrafficKind::kWriteNt:
      WriteNt(x.a, kWriteNtValue, x.n);
      return 0;
    case TrafficKind::kCopy:
      StreamCopy(x.b, x.a, x.n);
      return 0;
    case TrafficKind::kTriad:
      StreamTriad(x.a, x.b, x.c, kTriadScalar, x.n);
      return 0;
    case TrafficKind::kInPlace:
      InPlaceUpdate(x.a, x.b, x.c, kInPlaceS, kInPlaceT, x.n);
      return 0;
  }
  return 0;
}

double TrafficKernelBytes(accounting::TrafficKind kind, int64_t n) {
  return accounting::KernelCountedBytesPerElement(kind) * static_cast<double>(n);
}

}  // namespace micro
