// AdamW over a contiguous range of parameters on the CPU: one OpenMP-parallel, vectorisable
// pass reading p, g, m, v and writing p, m, v (the per-element math is in adamw_math.h).
// The model calls it once per parameter tensor with that tensor's weight decay (0 for biases
// and LayerNorms).
#ifndef MODEL_ADAMW_CPU_H_
#define MODEL_ADAMW_CPU_H_

#include <cstdint>

namespace model {

// params, grads, m, v: (n); t: the step number, from 1 (bias correction).
template <typename F>
void adamw_update(F* params, const F* grads, F* m, F* v, int64_t n, float lr, float beta1, float beta2,
                  float eps, float weight_decay, int t);

// The same for fp32 parameters, also writing their bf16 copies (params_bf16, n) in the same pass:
// the mixed-precision step's weights for its GEMMs (model/bf16.h rounding).
void adamw_update_bf16_copy(float* params, uint16_t* params_bf16, const float* grads, float* m, float* v,
                            int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay, int t);

}  // namespace model

#endif  // MODEL_ADAMW_CPU_H_
