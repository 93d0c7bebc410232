// Linear layer forward / backward as GemmRunner calls plus the bias-gradient kernel.
#include "model/cuda/matmul_cuda.h"

#include "accounting/flop_counter.h"
#include "model/cuda/bf16.h"
#include "model/cuda/bias_backward_cuda.h"
#include "model/cuda/gemm_spec.h"

namespace model {
namespace cuda {

template <typename S>
void matmul_forward(S* out, const S* inp, const S* weight, const S* bias, const S* residual, S* gelu_aux,
                    int64_t B, int64_t T, int64_t C, int64_t OC, GemmRunner* gemm, bool tf32,
                    std::string_view tag) {
  const int64_t R = B * T;
  accounting::CountMatmul(R, C, OC, tag);
  const GemmCall call =
      LinearForward(out, inp, weight, bias, residual, gelu_aux, R, C, OC, StorageOf<S>(), tf32);
  gemm->Run(call.spec, call.ptrs);
}

template <typename S>
void matmul_backward(S* dinp, float* dweight, float* dbias, const S* dout, const S* inp, const S* weight,
                     const S* dgelu_aux, int64_t B, int64_t T, int64_t C, int64_t OC, GemmRunner* gemm,
                     bool tf32, std::string_view tag) {
  const int64_t R = B * T;
  if (dinp != nullptr) {
    accounting::CountMatmul(R, OC, C, tag);
    const GemmCall call = LinearBackwardInput(dinp, dout, weight, dgelu_aux, R, C, OC, StorageOf<S>(), tf32);
    gemm->Run(call.spec, call.ptrs);
  }
  accounting::CountMatmul(OC, R, C, tag);
  const GemmCall call = LinearBackwardWeight(dweight, dout, inp, R, C, OC, StorageOf<S>(), tf32);
  gemm->Run(call.spec, call.ptrs);
  if (dbias != nullptr) bias_backward(dbias, dout, R, OC);
}

template void matmul_forward<float>(float*, const float*, const float*, const float*, const float*, float*,
                                    int64_t, int64_t, int64_t, int64_t, GemmRunner*, bool, std::string_view);
template void matmul_forward<Bf16>(Bf16*, const Bf16*, const Bf16*, const Bf16*, const Bf16*, Bf16*, int64_t,
                                   int64_t, int64_t, int64_t, GemmRunner*, bool, std::string_view);
template void matmul_backward<float>(float*, float*, float*, const float*, const float*, const float*,
                                     const float*, int64_t, int64_t, int64_t, int64_t, GemmRunner*, bool,
                                     std::string_view);
template void matmul_backward<Bf16>(Bf16*, float*, float*, const Bf16*, const Bf16*, const Bf16*, const Bf16*,
                                    int64_t, int64_t, int64_t, int64_t, GemmRunner*, bool, std::string_view);

}  // namespace cuda
}  // namespace model
