// Storage conversion on the GPU: the fp32 master weights into the bf16 copy the matmuls read
// (after initialisation and CopyParamsFromHost; AdamW refreshes the copy itself).
#ifndef MODEL_CUDA_CONVERT_CUDA_H_
#define MODEL_CUDA_CONVERT_CUDA_H_

#include <cstdint>

#include "model/cuda/bf16.h"

namespace model {
namespace cuda {

// out: (n) = in (n) rounded to nearest even.
void convert_to_bf16(Bf16* out, const float* in, int64_t n);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_CONVERT_CUDA_H_
