// Linear layer for a prompt's many rows with int8 weights (quantize_int8.h) on the CPU: out = inp
// @ dequant(weight)^T + bias, by dequantising a tile of output rows at a time into an fp32
// scratch (q * s, exactly the weights the matrix-vector form sees) and running the fp32 GEMM of
// the CPU backend (gemm_cpu.h: oneDNN, or whichever cpu_gemm_backend.h picks) on it, writing
// the tile's columns of `out` in place (its row stride OC).
//
// Why dequantise and not oneDNN's int8 matmul: a prompt of B*P rows is compute-bound (each weight
// is used B*P times), so the int8 bytes save little there, while the dequantisation costs one
// pass over the weight (OC*C multiplies, against the GEMM's 2*rows*OC*C FLOPs). oneDNN's s8
// matmul would quantise the activations too (a different, lossier product than decode's fp32
// inputs, so prefill and decode would disagree), and its fp32-activation, int8-weight form
// ("weights decompression") runs only on AVX-512/AMX kernels, not on AVX2 machines such as this
// project's Zen 3 VMs. The tile (about 4 MiB of fp32) stays in the last-level cache between the
// dequantisation and the GEMM. Counts 2*rows*C*OC FLOPs under `tag`, as matmul_forward.
#ifndef MODEL_MATMUL_INT8_CPU_H_
#define MODEL_MATMUL_INT8_CPU_H_

#include <cstdint>
#include <string_view>

namespace model {

// Output rows a tile dequantises at once for an input width C (a multiple of 64, at most OC).
int64_t Int8TileRows(int64_t C, int64_t OC);

// The fp32 scratch matmul_forward_int8 needs for a (OC, C) weight: Int8TileRows(C, OC) * C floats.
int64_t Int8ScratchFloats(int64_t C, int64_t OC);

// out: (rows, OC) = inp (rows, C) @ (weight (OC, C) * scales (OC))^T + bias (OC) or nullptr;
// scratch: at least Int8ScratchFloats(C, OC) floats. Called from one thread (OpenMP inside).
void matmul_forward_int8(float* out, const float* inp, const int8_t* weight, const float* scales,
                         const float* bias, int64_t rows, int64_t C, int64_t OC, float* scratch,
                         std::string_view tag = "matmul");

}  // namespace model

#endif  // MODEL_MATMUL_INT8_CPU_H_
