// GeLU with the tanh approximation (GPT-2; PyTorch's gelu(approximate='tanh')), as inline
// functions a CUDA kernel can share (MODEL_HD):
//   u        = k (x + 0.044715 x^3),  k = sqrt(2/pi)
//   gelu(x)  = 0.5 x (1 + tanh(u))
//   gelu'(x) = 0.5 (1 + tanh(u)) + 0.5 x (1 - tanh(u)^2) k (1 + 3*0.044715 x^2)
// 1 - tanh^2 replaces llm.c's 1/cosh^2, which overflows for large |u|. The *_from_tanh forms
// let a caller bring its own tanh (the CPU uses a vectorisable one, fast_math_cpu.h).
#ifndef MODEL_GELU_MATH_H_
#define MODEL_GELU_MATH_H_

#include <cmath>

#include "model/model_hd.h"

namespace model {

template <typename F>
MODEL_HD inline F gelu_tanh_arg(F x) {
  return F(0.7978845608028654) * (x + F(0.044715) * x * x * x);
}

template <typename F>
MODEL_HD inline F gelu_from_tanh(F x, F th) {
  return F(0.5) * x * (F(1) + th);
}

template <typename F>
MODEL_HD inline F gelu_grad_from_tanh(F x, F th) {
  return F(0.5) * (F(1) + th) +
         F(0.5) * x * (F(1) - th * th) * F(0.7978845608028654) * (F(1) + F(3 * 0.044715) * x * x);
}

template <typename F>
MODEL_HD inline F gelu_tanh(F x) {
  return gelu_from_tanh(x, F(std::tanh(gelu_tanh_arg(x))));
}

template <typename F>
MODEL_HD inline F gelu_tanh_grad(F x) {
  return gelu_grad_from_tanh(x, F(std::tanh(gelu_tanh_arg(x))));
}

}  // namespace model

#endif  // MODEL_GELU_MATH_H_
