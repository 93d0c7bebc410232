// Linear layer for a few rows (decode: one token per stream) on the CPU: out = inp @ weight^T
// + bias with weight (OC, C) row-major, as matmul_cpu.h, but as matrix-vector products that
// read each weight row once for all M input rows, straight from memory, with no packing. A GEMM
// library packs the weight into panels on each call, which for M = 1 costs more traffic than
// the product itself; this is the bandwidth-bound form (llm.c's and llama.cpp's decode path).
// OpenMP over contiguous shares of output rows, one a thread; within a share, several weight rows
// at once, each a quarter of the share apart (several long streams in flight a core: one stream a
// core leaves DRAM bandwidth unused), each in its own vector accumulators (GCC vector extensions,
// as wide as the machine's vectors). Counts 2*M*C*OC FLOPs under `tag`, as matmul_forward.
#ifndef MODEL_MATVEC_CPU_H_
#define MODEL_MATVEC_CPU_H_

#include <cstdint>
#include <string_view>

namespace model {

// The most input rows matvec_forward takes; more rows are a GEMM's job (matmul_forward).
inline constexpr int64_t kMatvecMaxRows = 8;

// out: (M, OC) = inp (M, C) @ weight (OC, C)^T + bias (OC) or nullptr; 1 <= M <= kMatvecMaxRows.
void matvec_forward(float* out, const float* inp, const float* weight, const float* bias, int64_t M,
                    int64_t C, int64_t OC, std::string_view tag = "matmul");

// The same with the weight in bf16 (model/bf16.h, the decoder's bf16 copy): each weight read as
// 2 bytes and widened to fp32 in the register, products and sums in fp32. At M = 1 a pair of
// columns is widened from one 32-bit word (a shift for the even column, a mask for the odd one)
// against an input permuted once to match, which takes half the widening instructions.
void matvec_forward_bf16(float* out, const float* inp, const uint16_t* weight, const float* bias, int64_t M,
                         int64_t C, int64_t OC, std::string_view tag = "matmul");

// The same with int8 weights (quantize_int8.h: symmetric, one fp32 scale per output row), 1 byte
// a weight, which is what moves decode's bandwidth bound (gpt-fast's and llama.cpp's int8
// weight-only decode): each weight widened to fp32 in the register (sign-extend and convert), fp32
// sums with the fp32 inputs, each row's scale applied once to its finished sum:
// out[m, j] = (sum_k x[m, k] q[j, k]) * scales[j] + bias[j]. The widening and the scale are not
// counted as FLOPs.
void matvec_forward_int8(float* out, const float* inp, const int8_t* weight, const float* scales,
                         const float* bias, int64_t M, int64_t C, int64_t OC, std::string_view tag = "matmul");

}  // namespace model

#endif  // MODEL_MATVEC_CPU_H_
