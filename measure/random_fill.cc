// FillUniform: the host fill of random_fill.h, OpenMP-parallel.
#include "measure/random_fill.h"

namespace micro {

void FillUniform(float* out, int64_t n, uint64_t seed, bool positive) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    out[i] =
        positive ? HashPositive(seed, static_cast<uint64_t>(i)) : HashUniform(seed, static_cast<uint64_t>(i));
  }
}

}  // namespace micro
