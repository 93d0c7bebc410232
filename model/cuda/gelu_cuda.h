// GeLU (tanh approximation) on the GPU (llm.c's gelu_forward / gelu_backward), with the math
// of model/gelu_math.h in fp32; CPU twin: model/gelu_cpu.h. The model uses these where the
// GeLU is not fused into the fc matmul's cuBLASLt epilogue.
#ifndef MODEL_CUDA_GELU_CUDA_H_
#define MODEL_CUDA_GELU_CUDA_H_

#include <cstdint>

namespace model {
namespace cuda {

// out, inp: (N); out = gelu(inp).
template <typename S>
void gelu_forward(S* out, const S* inp, int64_t N);

// dinp, inp, dout: (N); dinp = gelu'(inp) * dout, OVERWRITTEN (dinp may alias dout).
template <typename S>
void gelu_backward(S* dinp, const S* inp, const S* dout, int64_t N);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_GELU_CUDA_H_
