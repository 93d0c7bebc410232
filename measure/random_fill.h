// Deterministic random data for benchmark inputs, identical on host and device.
//
// HashUniform(seed, i) is a pure function of (seed, i): a splitmix64 hash mapped to an odd
// multiple of 2^-22 in (-1, 1). It is never 0 (benchmark data must not be zeros) and it is
// exact in fp32, so a CUDA fill kernel and a host reference produce bit-identical inputs
// without copying them across. This header includes no CUDA header: under nvcc the functions
// are also __device__.
#ifndef MEASURE_RANDOM_FILL_H_
#define MEASURE_RANDOM_FILL_H_

#include <cstdint>

#if defined(__CUDACC__)
#define MICRO_HOST_DEVICE __host__ __device__
#else
#define MICRO_HOST_DEVICE
#endif

namespace micro {

// splitmix64 finaliser of (seed, i).
MICRO_HOST_DEVICE inline uint64_t HashIndex(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// (2b + 1 - 2^22) / 2^22 for a 22-bit b: an odd multiple of 2^-22 in (-1, 1), never 0,
// exact in fp32.
MICRO_HOST_DEVICE inline float HashUniform(uint64_t seed, uint64_t i) {
  uint32_t b = static_cast<uint32_t>(HashIndex(seed, i) >> 42);  // 22 bits
  return static_cast<float>(2 * static_cast<int32_t>(b) + 1 - (1 << 22)) * (1.0f / 4194304.0f);
}

// In (0, 1): for inputs that must be positive (AdamW's second moment).
MICRO_HOST_DEVICE inline float HashPositive(uint64_t seed, uint64_t i) {
  float u = HashUniform(seed, i);
  return 0.5f * u + 0.5f;
}

// out: (n,). out[i] = HashUniform(seed, offset + i), or HashPositive when `positive`.
// Parallel (OpenMP, static schedule) so pages are first touched by the threads that use them.
void FillUniform(float* out, int64_t n, uint64_t seed, bool positive = false);

}  // namespace micro

#endif  // MEASURE_RANDOM_FILL_H_
