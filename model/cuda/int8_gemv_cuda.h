// Int8 weight-only GEMV on the GPU: a decode step's Linear layer for its few rows with weights
// stored as int8, symmetric per output channel (int8_gemv_math.h: q (OC, C) int8 and one fp32
// scale a row), activations and output in storage S (float or Bf16), fp32 accumulation:
//   out[m, o] = scales[o] * sum_c q[o, c] * inp[m, c] + bias[o]      (M <= 8 rows)
// The weights are the bytes a decode step reads, so the kernel streams each row once for all M
// rows (gpt-fast's and llama.cpp's int8 decode idea: the bound is bandwidth / weight bytes, and
// int8 is a quarter of fp32's): one warp per output channel, each lane loading 16 consecutive int8
// weights (one 128-bit load: a warp reads 512 contiguous bytes) where the rows allow it (C % 16 ==
// 0, aligned), else 4 (C % 4 == 0), else one; every weight is widened to fp32 in registers and
// multiplied into one accumulator per row; a warp sum (warp_reduce.cuh) then gives each row's
// total, scaled once. The activations (M x C, a few KB) are read from global memory by every warp
// and stay in L1/L2.
//
// Not wired into the CUDA decoder (kv_decoder_cuda.h) yet: it is the kernel of a future
// WeightFormat::kInt8 on CUDA, tested alone (int8_gemv_test.cc against an fp64 reference over the
// dequantised weights, in the emulator and on a GPU). It reports no FLOPs to accounting's counter
// (the decoder that calls it will, with its Linear tags).
// Legend: M rows (streams), C input channels, OC output channels.
#ifndef MODEL_CUDA_INT8_GEMV_CUDA_H_
#define MODEL_CUDA_INT8_GEMV_CUDA_H_

#include <cstdint>
#include <string>

namespace model {
namespace cuda {

// out: (M, OC); inp: (M, C); q: (OC, C) int8; scales: fp32 (OC); bias: (OC) storage S, or null.
// Returns "" after queuing the kernel on the model's stream; else the error of
// Int8GemvArgsError (int8_gemv_math.h: M outside [1, 8], C or OC < 1, a null pointer), and
// nothing runs.
template <typename S>
std::string int8_gemv_forward(S* out, const S* inp, const int8_t* q, const float* scales, const S* bias,
                              int64_t M, int64_t C, int64_t OC);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_INT8_GEMV_CUDA_H_
