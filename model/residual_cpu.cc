// Residual add on the CPU.
#include "model/residual_cpu.h"

namespace model {

template <typename F>
void residual_forward(F* out, const F* inp1, const F* inp2, int64_t N) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < N; ++i) out[i] = inp1[i] + inp2[i];
}

template void residual_forward<float>(float*, const float*, const float*, int64_t);
template void residual_forward<double>(double*, const double*, const double*, int64_t);

}  // namespace model
