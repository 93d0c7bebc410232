// Weight-only int8 quantisation of a Linear weight, symmetric per output channel (one fp32 scale
// per row of a (OC, C) row-major weight): s = max|w_row| / 127, q = round(w / s) to nearest
// (ties to even), clamped to [-127, 127]; an all-zero row gets s = 0 and dequantises to zeros.
// -128 is never used, so the range is symmetric and q * s never exceeds max|w_row|. Per-output-
// channel scales are gpt-fast's int8 weight-only scheme (and llama.cpp's Q8 with one block a row):
// the error of a weight is at most s / 2, and the matrix-vector product can apply each row's
// scale once to its fp32 sum (matvec_cpu.h matvec_forward_int8). The decoder quantises once at load
// (cpu_decoder.h, WeightFormat::kInt8).
#ifndef MODEL_QUANTIZE_INT8_H_
#define MODEL_QUANTIZE_INT8_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"

namespace model {

// The largest |q|: the range is [-kInt8Max, kInt8Max].
inline constexpr int kInt8Max = 127;

// q: (OC, C) and scales: (OC) from w: (OC, C). OpenMP over rows (from one thread). Error
// (InvalidArgument) when a weight is NaN or infinite, naming its row, column and value (q and
// scales are then unspecified), or when OC or C < 1.
absl::Status QuantizeInt8(const float* w, int64_t OC, int64_t C, int8_t* q, float* scales);

// out: (OC, C) = q * scales[row], exactly as the int8 kernels see the weight (one fp32 product).
void DequantizeInt8(const int8_t* q, const float* scales, int64_t OC, int64_t C, float* out);

// A Linear weight in int8: q (rows, cols) row-major and one scale per row.
struct Int8Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<int8_t> q;
  std::vector<float> scales;
  // The bytes a matrix-vector product reads: the int8 weights and the fp32 scales.
  int64_t bytes() const { return rows * cols + rows * static_cast<int64_t>(sizeof(float)); }
};

// QuantizeInt8 into a new Int8Matrix (its errors).
absl::Status QuantizeInt8Matrix(const float* w, int64_t OC, int64_t C, Int8Matrix* out);

}  // namespace model

#endif  // MODEL_QUANTIZE_INT8_H_
