// GeLU (tanh approximation) on the CPU (llm.c's gelu_forward / gelu_backward); the math is
// in gelu_math.h, shared with the CUDA kernels.
#ifndef MODEL_GELU_CPU_H_
#define MODEL_GELU_CPU_H_

#include <cstdint>

namespace model {

// out, inp: (N); out = gelu(inp).
template <typename F>
void gelu_forward(F* out, const F* inp, int64_t N);

// The train step's form: out = gelu(x), and x is written over with gelu'(x), which is all the
// backward needs of it (gelu_backward_saved). The tanh is computed once a step instead of twice,
// and the backward is one multiply. GPT-2 fp32 at B*T = 256 on a 2-core Intel VM: forward and
// backward 16.1 -> 6.9 ms a step. Bit for bit gelu_forward and gelu_backward.
template <typename F>
void gelu_forward_saving_grad(F* out, F* x_to_grad, int64_t N);

// The same with out rounded to bf16 (the bf16 step's next Linear input): bit for bit
// gelu_forward and then ConvertToBf16, without the fp32 output's write and second read.
void gelu_forward_saving_grad_bf16(uint16_t* out, float* x_to_grad, int64_t N);

// dinp = grad * dout, grad from gelu_forward_saving_grad (dinp may alias dout).
template <typename F>
void gelu_backward_saved(F* dinp, const F* grad, const F* dout, int64_t N);

// The form that recomputes the tanh from inp (llm.c's); the train step uses the saved form above,
// and the tests check it against this one.
// dinp, inp, dout: (N); dinp = gelu'(inp) * dout, OVERWRITTEN (dinp may alias dout).
template <typename F>
void gelu_backward(F* dinp, const F* inp, const F* dout, int64_t N);

}  // namespace model

#endif  // MODEL_GELU_CPU_H_
