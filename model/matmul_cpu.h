// Linear layer on the CPU (llm.c's matmul_forward / matmul_backward) through GEMMs with
// transposes, never copying a weight: fp32 on the backend of cpu_gemm_backend.h (oneDNN by
// default, its bias fused into the forward GEMM; or OpenBLAS), fp64 on OpenBLAS. Every GEMM reports 2*m*k*n
// to accounting's FLOP counter under `tag` (the caller's current counter; see accounting/flop_counter.h).
// Legend: B batch, T sequence, C input features, OC output features. Weights are (OC, C).
// Templated on the element type: float for training, double for the gradient check.
#ifndef MODEL_MATMUL_CPU_H_
#define MODEL_MATMUL_CPU_H_

#include <cstdint>
#include <string_view>

#include "model/grad_write.h"

namespace model {

// out: (B, T, OC) = inp (B, T, C) @ weight^T + bias; weight: (OC, C); bias: (OC) or nullptr.
template <typename F>
void matmul_forward(F* out, const F* inp, const F* weight, const F* bias, int64_t B, int64_t T, int64_t C,
                    int64_t OC, std::string_view tag = "matmul");

// dinp: (B, T, C) = dout @ weight, OVERWRITTEN.
// dweight: (OC, C) += dout^T @ inp; dbias: (OC) += column sums of dout (skipped when nullptr);
// with GradWrite::kOverwrite both are written over instead (the GEMM's beta = 0).
// dout: (B, T, OC); inp: (B, T, C); weight: (OC, C). dinp may be nullptr (no input gradient).
template <typename F>
void matmul_backward(F* dinp, F* dweight, F* dbias, const F* dout, const F* inp, const F* weight, int64_t B,
                     int64_t T, int64_t C, int64_t OC, std::string_view tag = "matmul",
                     GradWrite write = GradWrite::kAccumulate);

// Each of out's rows (rows, OC) set to bias (OC): where a GEMM then accumulates its product
// (beta = 1), the forward's bias comes first. OpenMP over the rows.
template <typename F>
void bias_rows(F* out, const F* bias, int64_t rows, int64_t OC);

// dbias (OC) += the column sums of dout (BT, OC), or = with GradWrite::kOverwrite. Each thread owns
// a block of columns and walks the rows in order, so the result does not depend on the thread
// count. matmul_backward's and matmul_backward_bf16's bias gradient.
template <typename F>
void bias_backward(F* dbias, const F* dout, int64_t BT, int64_t OC, GradWrite write);

}  // namespace model

#endif  // MODEL_MATMUL_CPU_H_
