// The arithmetic of the int8 weight-only GEMV (int8_gemv_cuda.h) as small MODEL_HD functions, so
// that the host tests check exactly what the kernel computes: widening a packed int8 weight to
// fp32, the dot product of four packed weights with four activations, the output (the row's
// scale applied once to the fp32 sum, then the bias), and the launcher's argument checks and
// load width (plain host code).
//
// The weight format: q (OC, C) int8 row-major, symmetric per output channel (one fp32 scale a
// row, q = round(w / s) in [-127, 127], s = max|w_row| / 127; gpt-fast's int8 weight-only
// scheme). A word holds four consecutive weights of a row, the lowest-addressed in the low byte
// (little-endian, as a 4-byte load of the row gives them on x86 and on NVIDIA GPUs).
#ifndef MODEL_CUDA_INT8_GEMV_MATH_H_
#define MODEL_CUDA_INT8_GEMV_MATH_H_

#include <cmath>
#include <cstdint>
#include <string>

#include "model/model_hd.h"

namespace model {
namespace cuda {

// The most input rows one launch takes: a decode step's few streams (each lane keeps one fp32
// accumulator per row in registers).
inline constexpr int kInt8GemvMaxRows = 8;

// Weight k (0..3) of a packed word, sign-extended and widened to fp32 (exact: |q| <= 128).
MODEL_HD inline float Int8Lane(uint32_t word, int k) {
  return static_cast<float>(static_cast<int8_t>(static_cast<uint8_t>(word >> (8 * k))));
}

// acc + sum_k q_k * x_k over the four weights of `word`, in fp32, in the order k = 0, 1, 2, 3: one
// fused multiply-add each (the product exact, one rounding per add), the same bits on the host
// and on the GPU.
MODEL_HD inline float Int8Dot4(uint32_t word, float x0, float x1, float x2, float x3, float acc) {
  acc = fmaf(Int8Lane(word, 0), x0, acc);
  acc = fmaf(Int8Lane(word, 1), x1, acc);
  acc = fmaf(Int8Lane(word, 2), x2, acc);
  return fmaf(Int8Lane(word, 3), x3, acc);
}

// One output: the row's sum of q * x times its scale, once, plus the bias (0 when there is none).
// A zero row (scale 0) gives the bias alone.
MODEL_HD inline float Int8GemvOutput(float sum, float scale, float bias) { return fmaf(sum, scale, bias); }

// Bytes of a row each lane loads at once: 16 (one 128-bit load of 16 weights) when every row of
// q starts 16-byte aligned (C % 16 == 0 and q aligned), else 4 (C % 4 == 0, q 4-byte aligned), else
// 1. The activations are then read 4 at a time too (their rows: C % 4 == 0 and the buffer
// aligned to 16 bytes for fp32, 8 for bf16), so the vector widths also need inp aligned; the
// launcher passes that in `inp_aligned`.
inline int Int8GemvLoadBytes(const void* q, int64_t C, bool inp_aligned) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(q);
  if (!inp_aligned || C % 4 != 0) return 1;
  if (C % 16 == 0 && a % 16 == 0) return 16;
  return a % 4 == 0 ? 4 : 1;
}

// "" when the arguments can run; else what is wrong, naming the value and the allowed range:
// 1 <= M <= kInt8GemvMaxRows, C >= 1, OC >= 1, C and OC below 2^31 (a row index times C stays
// in int64 with room), and non-null out, inp, q and scales (bias may be null).
inline std::string Int8GemvArgsError(const void* out, const void* inp, const void* q, const void* scales,
                                     int64_t M, int64_t C, int64_t OC) {
  if (M < 1 || M > kInt8GemvMaxRows) {
    return "M=" + std::to_string(M) + " rows: must be in [1, " + std::to_string(kInt8GemvMaxRows) +
           "] (a decode step's few streams; a prompt's many rows are a GEMM)";
  }
  constexpr int64_t kMaxDim = (int64_t{1} << 31) - 1;
  if (C < 1 || C > kMaxDim) return "C=" + std::to_string(C) + " input channels: must be in [1, 2^31)";
  if (OC < 1 || OC > kMaxDim) return "OC=" + std::to_string(OC) + " output channels: must be in [1, 2^31)";
  if (out == nullptr) return "out is null";
  if (inp == nullptr) return "inp is null";
  if (q == nullptr) return "q (the int8 weights) is null";
  if (scales == nullptr) return "scales is null";
  return "";
}

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_INT8_GEMV_MATH_H_
