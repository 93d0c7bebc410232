// SwiGLU on the CPU: OpenMP over rows, each row's F values in a vectorised loop (the sigmoid's
// exponential is ExpCpu, as the GeLU's and the softmax's).
#include "model/swiglu_cpu.h"

#include "model/fast_math_cpu.h"
#include "model/swiglu_math.h"

namespace model {

template <typename F>
void swiglu_forward(F* out, const F* inp, int64_t N, int64_t Fh) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < N; ++r) {
    const F* g = inp + r * 2 * Fh;
    const F* u = g + Fh;
    F* o = out + r * Fh;
#pragma omp simd
    for (int64_t i = 0; i < Fh; ++i) {
      const F sig = F(1) / (F(1) + ExpCpu(-g[i]));
      o[i] = SwigluValue(g[i], u[i], sig);
    }
  }
}

template <typename F>
void swiglu_backward(F* dinp, const F* dout, const F* inp, int64_t N, int64_t Fh) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < N; ++r) {
    const F* g = inp + r * 2 * Fh;
    const F* u = g + Fh;
    const F* d = dout + r * Fh;
    F* dg = dinp + r * 2 * Fh;
    F* du = dg + Fh;
#pragma omp simd
    for (int64_t i = 0; i < Fh; ++i) {
      const F sig = F(1) / (F(1) + ExpCpu(-g[i]));
      SwigluGrad(g[i], u[i], sig, d[i], &dg[i], &du[i]);
    }
  }
}

template void swiglu_forward<float>(float*, const float*, int64_t, int64_t);
template void swiglu_forward<double>(double*, const double*, int64_t, int64_t);
template void swiglu_backward<float>(float*, const float*, const float*, int64_t, int64_t);
template void swiglu_backward<double>(double*, const double*, const double*, int64_t, int64_t);

}  // namespace model
