// The kernels behind the memory roofs (accounting/memory_roofs.h has the table of kinds, the
// bytes each counts and the bytes the hardware moves): one per kind of traffic, each thread over
// its own static slice of the arrays, plain loops GCC vectorises (built with
// -fno-tree-loop-distribute-patterns so the copy stays a loop, not a memcpy with its own
// non-temporal stores). Arrays are fp32, 64-byte aligned for WriteNt.
#ifndef MEASURE_MEMORY_KERNELS_H_
#define MEASURE_MEMORY_KERNELS_H_

#include <cstdint>

#include "accounting/memory_roofs.h"

namespace micro {

// Streams the read kernel splits its array into (ReadSum).
inline constexpr int64_t kReadStreams = 8;

// a: (n,). Returns the sum of a (float lanes: a probe's checksum, not an accurate sum), read as
// kReadStreams interleaved streams.
double ReadSum(const float* a, int64_t n);
// a: (n,), 64-byte aligned. a[i] = v with non-temporal stores, then a store fence.
void WriteNt(float* a, float v, int64_t n);
// b: (n,), a: (n,). b[i] = a[i].
void StreamCopy(float* b, const float* a, int64_t n);
// a: (n,), b: (n,), c: (n,). a[i] = b[i] + s * c[i].
void StreamTriad(float* a, const float* b, const float* c, float s, int64_t n);
// a, b updated in place from c: a[i] = s a[i] + c[i]; b[i] = t b[i] + c[i] c[i].
void InPlaceUpdate(float* a, float* b, const float* c, float s, float t, int64_t n);

// The scalars every roof measurement passes: triad's s, in_place's s and t. With |s|, |t| < 1
// repeated in-place passes converge (a -> 2c, b -> 2c^2) and never overflow.
inline constexpr float kTriadScalar = 0.5f;
inline constexpr float kInPlaceS = 0.5f;
inline constexpr float kInPlaceT = 0.5f;
inline constexpr float kWriteNtValue = 1.5f;

// Three arrays of n floats each; which ones a kind touches: read a; write_nt a; copy a -> b;
// triad b, c -> a; in_place a, b from c.
struct TrafficArrays {
  float* a = nullptr;
  float* b = nullptr;
  float* c = nullptr;
  int64_t n = 0;
};

// Runs the kernel of `kind` once over the arrays; returns ReadSum's sum for read, else 0 (so
// the caller can keep the read from being optimised away).
double RunTrafficKernel(accounting::TrafficKind kind, const TrafficArrays& arrays);
// `reps` passes inside one OpenMP parallel region: each thread runs the kernel over its own static
// slice (64-byte aligned) reps times, with no barrier between passes. A cache-sized pass takes
// less than a parallel region's fork and join (0.7 us on a 2-core Zen 3 VM), so the working-set
// sweep (cache_sweep.h) repeats inside one region, as the Empirical Roofline Toolkit does.
double RepeatTrafficKernel(accounting::TrafficKind kind, const TrafficArrays& arrays, int64_t reps);
// The kernel over elements [lo, hi) on the calling thread alone.
double TrafficKernelRange(accounting::TrafficKind kind, const TrafficArrays& arrays, int64_t lo, int64_t hi);

// Bytes one RunTrafficKernel counts: KernelCountedBytesPerElement(kind) x n.
double TrafficKernelBytes(accounting::TrafficKind kind, int64_t n);

}  // namespace micro

#endif  // MEASURE_MEMORY_KERNELS_H_
