// Linear layer for a prompt's many rows over weights stored narrower than fp32 (int8 with
// per-row scales, quantize_int8.h; or bf16, bf16.h) with fp32 arithmetic on the CPU:
// out = inp @ widen(weight)^T + bias, by widening a tile of output rows at a time into an fp32
// scratch (exactly the weights the matrix-vector form sees: q * s, or the bf16 value) and running
// the fp32 GEMM of the CPU backend (gemm_cpu.h: oneDNN, or whichever cpu_gemm_backend.h picks) on
// it, writing the tile's columns of `out` in place (its row stride OC).
//
// Why widen and not a narrow GEMM: a prompt of B*P rows is compute-bound (each weight is used
// B*P times), so the narrow bytes save little there, while the widening costs one pass over the
// weight (OC*C conversions, against the GEMM's 2*rows*OC*C FLOPs). oneDNN's s8 matmul would
// quantise the activations too (a different, lossier product than decode's fp32 inputs, so
// prefill and decode would disagree), and its fp32-activation, int8-weight form ("weights
// decompression") runs only on AVX-512/AMX kernels, not on AVX2 machines such as this project's
// Zen 3 VMs; its bf16 matmul needs bf16 units (or AVX-512 to emulate them) and rounds the
// activations to bf16 (the decoder's bf16 prompt math, cpu_decoder.h). The tile (about 4 MiB of
// fp32) stays in the last-level cache between the widening and the GEMM. Counts 2*rows*C*OC
// FLOPs under `tag`, as matmul_forward.
#ifndef MODEL_MATMUL_DEQUANT_CPU_H_
#define MODEL_MATMUL_DEQUANT_CPU_H_

#include <cstdint>
#include <string_view>

namespace model {

// Output rows a tile widens at once for an input width C (a multiple of 64, at most OC).
int64_t DequantTileRows(int64_t C, int64_t OC);

// The fp32 scratch either form needs for a (OC, C) weight: DequantTileRows(C, OC) * C floats.
int64_t DequantScratchFloats(int64_t C, int64_t OC);

// out: (rows, OC) = inp (rows, C) @ (weight (OC, C) * scales (OC))^T + bias (OC) or nullptr;
// scratch: at least DequantScratchFloats(C, OC) floats. Called from one thread (OpenMP inside).
void matmul_forward_int8(float* out, const float* inp, const int8_t* weight, const float* scales,
                         const float* bias, int64_t rows, int64_t C, int64_t OC, float* scratch,
                         std::string_view tag = "matmul");

// The same with bf16 weights (OC, C), widened exactly (bf16 is fp32's upper half).
void matmul_forward_bf16w(float* out, const float* inp, const uint16_t* weight, const float* bias, int64_t rows,
                          int64_t C, int64_t OC, float* scratch, std::string_view tag = "matmul");

}  // namespace model

#endif  // MODEL_MATMUL_DEQUANT_CPU_H_
