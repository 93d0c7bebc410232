// The Linear layer of the CPU's mixed-precision (bf16) step: the GEMMs take bf16 operands and
// accumulate in fp32 on oneDNN's matmul primitive (AMX's brgemm, or AVX512-BF16's, as the CPU
// has); everything they write stays fp32 (the outputs, the gradients, the bias's column sums).
// As matmul_cpu.h, in the same legend (B batch, T sequence, C input features, OC output
// features, weights (OC, C)); each GEMM reports 2*m*k*n to accounting's FLOP counter under `tag`.
//
// The weights come as bf16 copies (the model makes them once per step, in AdamW's pass). The
// activations come as bf16 too: the forward's input is converted by the caller once and kept for
// the backward (`inp`); `dout` is converted here, into `dout_scratch` (B*T*OC elements).
#ifndef MODEL_MATMUL_BF16_CPU_H_
#define MODEL_MATMUL_BF16_CPU_H_

#include <cstdint>
#include <string_view>

#include "model/grad_write.h"

namespace model {

// out: (B, T, OC) fp32 = inp (B, T, C) bf16 @ weight^T (bf16) + bias (fp32, or nullptr).
void matmul_forward_bf16(float* out, const uint16_t* inp, const uint16_t* weight, const float* bias, int64_t B,
                         int64_t T, int64_t C, int64_t OC, std::string_view tag = "matmul");

// dinp (B, T, C) = dout @ weight, OVERWRITTEN (nullptr: none); dweight (OC, C) += dout^T @ inp and
// dbias (OC) += column sums of dout (fp32, from the fp32 dout), or written over with
// GradWrite::kOverwrite. dout (B, T, OC) fp32 is converted to bf16 in dout_scratch first; with
// dout nullptr, dout_scratch already holds it in bf16 (the loss's fused backward writes it so),
// and dbias must be nullptr (its sums need the fp32 dout).
void matmul_backward_bf16(float* dinp, float* dweight, float* dbias, const float* dout, const uint16_t* inp,
                          const uint16_t* weight, int64_t B, int64_t T, int64_t C, int64_t OC,
                          uint16_t* dout_scratch, std::string_view tag = "matmul",
                          GradWrite write = GradWrite::kAccumulate);


}  // namespace model

#endif  // MODEL_MATMUL_BF16_CPU_H_
