// int8 weight-only Linear layer for a prompt: dequantised tiles through the fp32 GEMM
// (matmul_int8_cpu.h).
#include "model/matmul_int8_cpu.h"

#include <algorithm>

#include "accounting/flop_counter.h"
#include "model/gemm_cpu.h"
#include "model/quantize_int8.h"

namespace model {

int64_t Int8TileRows(int64_t C, int64_t OC) {
  constexpr int64_t kTileFloats = int64_t{1} << 20;  // 4 MiB of fp32
  const int64_t rows = (kTileFloats / std::max<int64_t>(C, 1) + 63) / 64 * 64;
  return std::max<int64_t>(1, std::min(rows, OC));
}

int64_t Int8ScratchFloats(int64_t C, int64_t OC) { return Int8TileRows(C, OC) * C; }

void matmul_forward_int8(float* out, const float* inp, const int8_t* weight, const float* scales,
                         const float* bias, int64_t rows, int64_t C, int64_t OC, float* scratch,
                         std::string_view tag) {
  accounting::CountMatmul(rows, C, OC, tag);
  float beta = 0;
  if (bias != nullptr) {
    // Start each output row from the bias, then accumulate the tiles' products into it.
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      float* row = out + r * OC;
#pragma omp simd
      for (int64_t o = 0; o < OC; ++o) row[o] = bias[o];
    }
    beta = 1;
  }
  const int64_t tile = Int8TileRows(C, OC);
  for (int64_t o0 = 0; o0 < OC; o0 += tile) {
    const int64_t n = std::min(tile, OC - o0);
    DequantizeInt8(weight + o0 * C, scales + o0, n, C, scratch);
    // out[:, o0 .. o0 + n) (rows, n), row stride OC, = inp (rows, C) @ scratch (n, C)^T.
    cpu_gemm(/*trans_a=*/false, /*trans_b=*/true, rows, n, C, 1.0f, inp, C, scratch, C, beta, out + o0, OC);
  }
}

}  // namespace model
