// The array conversions of bf16.h.
#include "model/bf16.h"

#include <omp.h>

namespace model {

void ConvertToBf16(const float* src, uint16_t* dst, int64_t n) {
  // The if clause names `parallel`: without the modifier it applies to the simd part too
  // (OpenMP 5.0), where omp_in_parallel() is true inside the region, and the loop ran scalar.
#pragma omp parallel for simd schedule(static) if (parallel : n > 65536 && !omp_in_parallel())
  for (int64_t i = 0; i < n; ++i) dst[i] = FloatToBf16(src[i]);
}

void ConvertRowsToBf16(const float* src, int64_t ld, uint16_t* dst, int64_t rows, int64_t cols) {
#pragma omp parallel for schedule(static) if (rows * cols > 65536 && !omp_in_parallel())
  for (int64_t r = 0; r < rows; ++r) {
    const float* s = src + r * ld;
    uint16_t* d = dst + r * cols;
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) d[c] = FloatToBf16(s[c]);
  }
}

}  // namespace model
