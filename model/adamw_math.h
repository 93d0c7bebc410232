// The AdamW update of one element, as inline math a CUDA kernel can share (MODEL_HD).
// Decoupled weight decay (Loshchilov & Hutter; PyTorch's torch.optim.AdamW):
//   p <- p - lr * wd * p
//   m <- beta1 m + (1 - beta1) g;    v <- beta2 v + (1 - beta2) g^2
//   p <- p - lr * (m / bc1) / (sqrt(v / bc2) + eps),   bc1 = 1 - beta1^t, bc2 = 1 - beta2^t
#ifndef MODEL_ADAMW_MATH_H_
#define MODEL_ADAMW_MATH_H_

#include <cmath>

#include "model/model_hd.h"

namespace model {

template <typename F>
MODEL_HD inline void adamw_update_one(F* p, F* m, F* v, F g, F lr, F beta1, F beta2, F eps, F weight_decay,
                                      F bc1, F bc2) {
  const F mm = beta1 * *m + (F(1) - beta1) * g;
  const F vv = beta2 * *v + (F(1) - beta2) * g * g;
  *m = mm;
  *v = vv;
  const F decayed = *p - lr * weight_decay * *p;
  *p = decayed - lr * (mm / bc1) / (std::sqrt(vv / bc2) + eps);
}

// The bias correction of step t >= 1: 1 - beta^t, computed in F (float on the CPU and the CUDA
// model alike, so both divide by the same value).
template <typename F>
inline F adamw_bias_correction(F beta, int t) {
  return F(1) - std::pow(beta, F(t));
}

}  // namespace model

#endif  // MODEL_ADAMW_MATH_H_
