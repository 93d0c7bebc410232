// Linear layer on the GPU (llm.c's matmul_forward / matmul_backward) through the GemmRunner
// (cuBLASLt on a GPU): the bias, a residual add and the GeLU go into the GEMM's epilogue, the
// bias gradient is the bias_backward kernel. Every GEMM reports 2*m*k*n to accounting's FLOP
// counter under `tag`, exactly as the CPU twin (model/matmul_cpu.h) does.
// Legend: B batch, T sequence, C input features, OC output features; weights are (OC, C).
// S is the storage type (float or Bf16); gradients are fp32.
#ifndef MODEL_CUDA_MATMUL_CUDA_H_
#define MODEL_CUDA_MATMUL_CUDA_H_

#include <cstdint>
#include <string_view>

#include "model/cuda/gemm.h"

namespace model {
namespace cuda {

// out: (B, T, OC) = inp (B, T, C) @ weight (OC, C)^T [+ bias (OC)] [+ residual (B, T, OC)].
// With gelu_aux (B, T, OC): out = gelu(that) and gelu_aux = that (fused epilogue; the caller
// checked the runner supports it). bias, residual, gelu_aux may be nullptr.
template <typename S>
void matmul_forward(S* out, const S* inp, const S* weight, const S* bias, const S* residual, S* gelu_aux,
                    int64_t B, int64_t T, int64_t C, int64_t OC, GemmRunner* gemm, bool tf32,
                    std::string_view tag);

// dinp: (B, T, C) = dout @ weight, OVERWRITTEN (skipped when nullptr); with dgelu_aux
// (B, T, C), the forward pass's GeLU input, dinp is multiplied by gelu'(dgelu_aux) in the
// epilogue. dweight: fp32 (OC, C) += dout^T @ inp; dbias: fp32 (OC) += column sums of dout
// (skipped when nullptr). dout: (B, T, OC); inp: (B, T, C); weight: (OC, C).
template <typename S>
void matmul_backward(S* dinp, float* dweight, float* dbias, const S* dout, const S* inp, const S* weight,
                     const S* dgelu_aux, int64_t B, int64_t T, int64_t C, int64_t OC, GemmRunner* gemm,
                     bool tf32, std::string_view tag);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_MATMUL_CUDA_H_
