// Linear layer for a decode step's few rows with int8 weights (quantize_int8.h: symmetric, one
// fp32 scale per output row) on the CPU: out = inp @ dequant(weight)^T + bias, as
// matvec_forward of matvec_cpu.h but reading 1 byte a weight instead of 4, which is what moves
// decode's bandwidth bound (gpt-fast's and llama.cpp's int8 weight-only decode). Each int8 weight
// is widened to fp32 in a register (8 at a time: sign-extend and convert, vpmovsxbd + vcvtdq2ps
// on x86), multiplied into fp32 sums with fp32 inputs, and each output row's scale is applied
// once to its finished sum: out[m, j] = (sum_k x[m, k] q[j, k]) * s[j] + bias[j].
//
// Why GCC's vector extensions and not a plain loop: the sum must run in several independent
// accumulators (one FMA chain of 4-cycle latency reads only 8 bytes a 4 cycles, ~6 GB/s a core,
// below a memory roof), and GCC's loop vectoriser keeps an omp simd reduction in one register
// chain; the vector types make the widening, the accumulators and their count explicit, and
// compile on any target (split or scalarised where there is no 32-byte vector unit).
// OpenMP over blocks of output rows, as matvec_forward. Counts 2*M*C*OC FLOPs under `tag`, as
// the other matvecs (the widening and the scale are not counted).
#ifndef MODEL_MATVEC_INT8_CPU_H_
#define MODEL_MATVEC_INT8_CPU_H_

#include <cstdint>
#include <string_view>

namespace model {

// out: (M, OC) = inp (M, C) @ (weight (OC, C) * scales (OC))^T + bias (OC) or nullptr;
// 1 <= M <= kMatvecMaxRows (matvec_cpu.h), else it aborts naming M.
void matvec_forward_int8(float* out, const float* inp, const int8_t* weight, const float* scales,
                         const float* bias, int64_t M, int64_t C, int64_t OC, std::string_view tag = "matmul");

}  // namespace model

#endif  // MODEL_MATVEC_INT8_CPU_H_
