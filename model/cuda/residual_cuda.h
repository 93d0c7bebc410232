// Residual add on the GPU (llm.c's residual_forward); CPU twin: model/residual_cpu.h. The model
// folds its two residual adds per layer into the projection matmuls (cuBLASLt's C input with
// beta = 1, gemm_spec.h LinearForward); this kernel is the standalone op.
#ifndef MODEL_CUDA_RESIDUAL_CUDA_H_
#define MODEL_CUDA_RESIDUAL_CUDA_H_

#include <cstdint>

namespace model {
namespace cuda {

// out, inp1, inp2: (N); out = inp1 + inp2 (out may alias either input).
template <typename S>
void residual_forward(S* out, const S* inp1, const S* inp2, int64_t N);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_RESIDUAL_CUDA_H_
