// GeLU forward/backward on the CPU, OpenMP-parallel and vectorised: fp32 uses tanh_fast
// (fast_math_cpu.h, absolute error < 5e-7), fp64 std::tanh.
#include "model/gelu_cpu.h"

#include <cmath>

#include "model/bf16.h"
#include "model/fast_math_cpu.h"
#include "model/gelu_math.h"

namespace model {

template <typename F>
void gelu_forward(F* out, const F* inp, int64_t N) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < N; ++i) {
    const F x = inp[i];
    out[i] = gelu_from_tanh(x, TanhCpu(gelu_tanh_arg(x)));
  }
}

namespace {

inline float Narrow(float v, float*) { return v; }
inline double Narrow(double v, double*) { return v; }
inline uint16_t Narrow(float v, uint16_t*) { return FloatToBf16(v); }

// gelu_forward_saving_grad's loop, out in F or bf16.
template <typename F, typename Out>
void GeluSavingGrad(Out* out, F* x_to_grad, int64_t N) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < N; ++i) {
    const F x = x_to_grad[i];
    const F th = TanhCpu(gelu_tanh_arg(x));
    out[i] = Narrow(gelu_from_tanh(x, th), out);
    x_to_grad[i] = gelu_grad_from_tanh(x, th);
  }
}

}  // namespace

template <typename F>
void gelu_forward_saving_grad(F* out, F* x_to_grad, int64_t N) {
  GeluSavingGrad(out, x_to_grad, N);
}

void gelu_forward_saving_grad_bf16(uint16_t* out, float* x_to_grad, int64_t N) {
  GeluSavingGrad(out, x_to_grad, N);
}

template <typename F>
void gelu_backward_saved(F* dinp, const F* grad, const F* dout, int64_t N) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < N; ++i) dinp[i] = grad[i] * dout[i];
}

template <typename F>
void gelu_backward(F* dinp, const F* inp, const F* dout, int64_t N) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < N; ++i) {
    const F x = inp[i];
    dinp[i] = gelu_grad_from_tanh(x, TanhCpu(gelu_tanh_arg(x))) * dout[i];
  }
}

template void gelu_forward<float>(float*, const float*, int64_t);
template void gelu_forward<double>(double*, const double*, int64_t);
template void gelu_forward_saving_grad<float>(float*, float*, int64_t);
template void gelu_forward_saving_grad<double>(double*, double*, int64_t);
template void gelu_backward_saved<float>(float*, const float*, const float*, int64_t);
template void gelu_backward_saved<double>(double*, const double*, const double*, int64_t);
template void gelu_backward<float>(float*, const float*, const float*, int64_t);
template void gelu_backward<double>(double*, const double*, const double*, int64_t);

}  // namespace model
