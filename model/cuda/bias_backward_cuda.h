// Bias gradient of a Linear layer on the GPU: column sums of dout, accumulated in fp32. The
// CPU twin is the dbias part of model/matmul_cpu.h's matmul_backward.
// Legend: R rows (B*T), OC output features.
#ifndef MODEL_CUDA_BIAS_BACKWARD_CUDA_H_
#define MODEL_CUDA_BIAS_BACKWARD_CUDA_H_

#include <cstdint>

namespace model {
namespace cuda {

// dbias: fp32 (OC) += sum over rows of dout (R, OC). Row ranges meet with atomicAdd.
template <typename S>
void bias_backward(float* dbias, const S* dout, int64_t R, int64_t OC);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_BIAS_BACKWARD_CUDA_H_
