// The SwiGLU activation on the CPU (Shazeer 2020; Llama's MLP): the up GEMM's output holds, per
// row, the gate's F values then the up projection's F values (fcw's first F rows are W_gate, the
// next F are W_up), and the activation is silu(gate) * up, F values, the down projection's input.
//   silu(g) = g * sigmoid(g),   silu'(g) = sigmoid(g) * (1 + g * (1 - sigmoid(g)))
//   dgate = dout * up * silu'(gate),   dup = dout * silu(gate)
// The math is swiglu_math.h's, shared with the CUDA kernels.
#ifndef MODEL_SWIGLU_CPU_H_
#define MODEL_SWIGLU_CPU_H_

#include <cstdint>

namespace model {

// out: (N, F) = silu(gate) * up; inp: (N, 2F) = gate | up per row.
template <typename F>
void swiglu_forward(F* out, const F* inp, int64_t N, int64_t Fh);

// dinp: (N, 2F) OVERWRITTEN with dgate | dup; dout: (N, F); inp: (N, 2F) from the forward pass.
template <typename F>
void swiglu_backward(F* dinp, const F* dout, const F* inp, int64_t N, int64_t Fh);

}  // namespace model

#endif  // MODEL_SWIGLU_CPU_H_
