// bf16 on the CPU: the upper 16 bits of an fp32 (8 exponent bits, 7 mantissa bits), stored as
// uint16_t. Rounding is to nearest, ties to even, as oneDNN's and PyTorch's conversions round;
// NaN stays NaN (quiet). The CPU's mixed-precision step keeps fp32 masters and converts the GEMMs'
// operands (model/matmul_bf16_cpu.h).
#ifndef MODEL_BF16_H_
#define MODEL_BF16_H_

#include <cstdint>
#include <cstring>

namespace model {

inline uint16_t FloatToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
  return static_cast<uint16_t>(nan ? ((u >> 16) | 0x40u) : rounded);
}

inline float Bf16ToFloat(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// dst[i] = FloatToBf16(src[i]) for n elements: one OpenMP-parallel, vectorised pass (from one
// thread; inside a parallel region it runs on the calling thread).
void ConvertToBf16(const float* src, uint16_t* dst, int64_t n);

// Rows of a row-major matrix: dst (rows, cols) packed from src with row stride ld.
void ConvertRowsToBf16(const float* src, int64_t ld, uint16_t* dst, int64_t rows, int64_t cols);

}  // namespace model

#endif  // MODEL_BF16_H_
