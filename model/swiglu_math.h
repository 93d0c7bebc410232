// SwiGLU's pointwise math, shared by the CPU ops (swiglu_cpu.h) and the CUDA kernels: the sigmoid
// through the exponential the caller gives (the CPU's ExpCpu: exp_fast in fp32, std::exp in fp64).
#ifndef MODEL_SWIGLU_MATH_H_
#define MODEL_SWIGLU_MATH_H_

#include "model/model_hd.h"

namespace model {

// silu(g) * u, with sig = sigmoid(g).
template <typename F>
MODEL_HD inline F SwigluValue(F g, F u, F sig) {
  return g * sig * u;
}

// The gradients of silu(g) * u given d (the output's), with sig = sigmoid(g): dg and du.
template <typename F>
MODEL_HD inline void SwigluGrad(F g, F u, F sig, F d, F* dg, F* du) {
  *du = d * g * sig;
  *dg = d * u * sig * (F(1) + g * (F(1) - sig));
}

}  // namespace model

#endif  // MODEL_SWIGLU_MATH_H_
