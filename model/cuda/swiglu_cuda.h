// The SwiGLU activation on the GPU (Shazeer 2020; Llama's MLP): the up GEMM's output holds, per
// row, the gate's F values then the up projection's F values, and the activation is
// silu(gate) * up, F values, the down projection's input. The pointwise math is
// model/swiglu_math.h's (SwigluValue, SwigluGrad), shared with the CPU twin model/swiglu_cpu.h,
// in fp32 whatever the storage type S (float or Bf16); the sigmoid is 1 / (1 + expf(-g)).
//   silu(g) = g * sigmoid(g),   dgate = dout * up * silu'(gate),   dup = dout * silu(gate)
// Legend: N rows (B*T), F the MLP's hidden width.
#ifndef MODEL_CUDA_SWIGLU_CUDA_H_
#define MODEL_CUDA_SWIGLU_CUDA_H_

#include <cstdint>

namespace model {
namespace cuda {

// out: (N, F) = silu(gate) * up; inp: (N, 2F) = gate | up per row. One thread per output.
template <typename S>
void swiglu_forward(S* out, const S* inp, int64_t N, int64_t F);

// dinp: (N, 2F) OVERWRITTEN with dgate | dup (must not overlap dout or inp); dout: (N, F);
// inp: (N, 2F) from the forward pass. One thread per (row, channel), writing both gradients.
template <typename S>
void swiglu_backward(S* dinp, const S* dout, const S* inp, int64_t N, int64_t F);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_SWIGLU_CUDA_H_
