// GeLU (tanh approximation) on the CPU (llm.c's gelu_forward / gelu_backward); the math is
// in gelu_math.h, shared with the CUDA kernels.
#ifndef MODEL_GELU_CPU_H_
#define MODEL_GELU_CPU_H_

#include <cstdint>

namespace model {

// out, inp: (N); out = gelu(inp).
template <typename F>
void gelu_forward(F* out, const F* inp, int64_t N);

// The bf16 step's form: out = gelu(inp) rounded to bf16 (the next Linear's input), bit for bit
// gelu_forward and then ConvertToBf16, without the fp32 output's write and second read.
void gelu_forward_bf16(uint16_t* out, const float* inp, int64_t N);

// dinp, inp, dout: (N); dinp = gelu'(inp) * dout, OVERWRITTEN (dinp may alias dout).
template <typename F>
void gelu_backward(F* dinp, const F* inp, const F* dout, int64_t N);

}  // namespace model

#endif  // MODEL_GELU_CPU_H_
