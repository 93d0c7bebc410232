// A prompt's Linear layer over int8 or bf16 weights: widened tiles through the fp32 GEMM
// (matmul_dequant_cpu.h).
#include "model/matmul_dequant_cpu.h"

#include <algorithm>

#include "accounting/flop_counter.h"
#include "model/bf16.h"
#include "model/gemm_cpu.h"
#include "model/matmul_cpu.h"
#include "model/quantize_int8.h"

namespace model {
namespace {

// The GEMM over tiles of output rows, each widened into scratch by widen(o0, n, scratch) first.
template <typename Widen>
void TiledMatmul(float* out, const float* inp, const float* bias, int64_t rows, int64_t C, int64_t OC,
                 float* scratch, std::string_view tag, const Widen& widen) {
  accounting::CountMatmul(rows, C, OC, tag);
  float beta = 0;
  if (bias != nullptr) {
    bias_rows(out, bias, rows, OC);  // then accumulate the tiles' products into it
    beta = 1;
  }
  const int64_t tile = DequantTileRows(C, OC);
  for (int64_t o0 = 0; o0 < OC; o0 += tile) {
    const int64_t n = std::min(tile, OC - o0);
    widen(o0, n, scratch);
    // out[:, o0 .. o0 + n) (rows, n), row stride OC, = inp (rows, C) @ scratch (n, C)^T.
    cpu_gemm(/*trans_a=*/false, /*trans_b=*/true, rows, n, C, 1.0f, inp, C, scratch, C, beta, out + o0, OC);
  }
}

}  // namespace

int64_t DequantTileRows(int64_t C, int64_t OC) {
  constexpr int64_t kTileFloats = int64_t{1} << 20;  // 4 MiB of fp32
  const int64_t rows = (kTileFloats / std::max<int64_t>(C, 1) + 63) / 64 * 64;
  return std::max<int64_t>(1, std::min(rows, OC));
}

int64_t DequantScratchFloats(int64_t C, int64_t OC) { return DequantTileRows(C, OC) * C; }

void matmul_forward_int8(float* out, const float* inp, const int8_t* weight, const float* scales,
                         const float* bias, int64_t rows, int64_t C, int64_t OC, float* scratch,
                         std::string_view tag) {
  TiledMatmul(out, inp, bias, rows, C, OC, scratch, tag, [&](int64_t o0, int64_t n, float* dst) {
    DequantizeInt8(weight + o0 * C, scales + o0, n, C, dst);
  });
}

void matmul_forward_bf16w(float* out, const float* inp, const uint16_t* weight, const float* bias, int64_t rows,
                          int64_t C, int64_t OC, float* scratch, std::string_view tag) {
  TiledMatmul(out, inp, bias, rows, C, OC, scratch, tag, [&](int64_t o0, int64_t n, float* dst) {
    const uint16_t* src = weight + o0 * C;
    const int64_t count = n * C;
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < count; ++i) dst[i] = Bf16ToFloat(src[i]);
  });
}

}  // namespace model
