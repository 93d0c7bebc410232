// A small deterministic random number generator (xoshiro256**, seeded through SplitMix64) with
// uniform integers and Box-Muller normals. Unlike std::normal_distribution its output is fixed
// by this code, so a seed gives the same parameters and batches with every standard library.
#ifndef MODEL_DATA_RNG_H_
#define MODEL_DATA_RNG_H_

#include <cmath>
#include <cstdint>
#include <vector>

namespace model {

// One SplitMix64 step: advances `state` and returns a well-mixed 64-bit value.
inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Mixes several words into one seed (for independent streams: seed, tensor, chunk).
inline uint64_t MixSeed(uint64_t a, uint64_t b, uint64_t c = 0) {
  uint64_t s = a;
  uint64_t x = SplitMix64(s);
  s = x ^ b;
  x = SplitMix64(s);
  s = x ^ c;
  return SplitMix64(s);
}

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t s = seed;
    for (uint64_t& w : s_) w = SplitMix64(s);
  }

  uint64_t NextU64() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double Uniform01() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n), n >= 1, without modulo bias (rejection sampling).
  uint64_t UniformInt(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do {
      x = NextU64();
    } while (x >= limit);
    return x % n;
  }

  // Standard normal (Box-Muller; the second value of each pair is kept for the next call).
  double Normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u1;
    do {
      u1 = Uniform01();
    } while (u1 <= 0.0);
    const double u2 = Uniform01();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double theta = 6.283185307179586476925286766559 * u2;
    spare_ = r * std::sin(theta);
    has_spare_ = true;
    return r * std::cos(theta);
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

// n values drawn from a normal distribution with mean 0 and standard deviation `scale` (test
// inputs, weights of a given spread).
inline std::vector<float> RandomNormals(int64_t n, uint64_t seed, double scale = 1.0) {
  Rng rng(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = static_cast<float>(scale * rng.Normal());
  return v;
}

}  // namespace model

#endif  // MODEL_DATA_RNG_H_
