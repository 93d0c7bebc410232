// AdamW update on the CPU.
#include "model/adamw_cpu.h"

#include <cmath>

#include "model/adamw_math.h"
#include "model/bf16.h"

namespace model {

template <typename F>
void adamw_update(F* params, const F* grads, F* m, F* v, int64_t n, float lr, float beta1, float beta2,
                  float eps, float weight_decay, int t) {
  const F bc1 = adamw_bias_correction(F(beta1), t), bc2 = adamw_bias_correction(F(beta2), t);
  const F flr = lr, fb1 = beta1, fb2 = beta2, feps = eps, fwd = weight_decay;
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    adamw_update_one(&params[i], &m[i], &v[i], grads[i], flr, fb1, fb2, feps, fwd, bc1, bc2);
  }
}

void adamw_update_bf16_copy(float* params, uint16_t* params_bf16, const float* grads, float* m, float* v,
                            int64_t n, float lr, float beta1, float beta2, float eps, float weight_decay, int t) {
  const float bc1 = adamw_bias_correction(beta1, t), bc2 = adamw_bias_correction(beta2, t);
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    adamw_update_one(&params[i], &m[i], &v[i], grads[i], lr, beta1, beta2, eps, weight_decay, bc1, bc2);
    params_bf16[i] = FloatToBf16(params[i]);
  }
}

template void adamw_update<float>(float*, const float*, float*, float*, int64_t, float, float, float, float,
                                  float, int);
template void adamw_update<double>(double*, const double*, double*, double*, int64_t, float, float, float,
                                   float, float, int);

}  // namespace model
