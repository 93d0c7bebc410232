// The CUDA model's precision modes and how accounting's dtypes map onto them:
//   kFp32  fp32 storage, fp32 GEMMs (CUBLAS_COMPUTE_32F: no TF32): matches the CPU model ~1e-5.
//   kTf32  fp32 storage, GEMMs on TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32).
//   kBf16  bf16 activations and bf16 weight copies feeding bf16 GEMMs with fp32 accumulation;
//          fp32 master weights, gradients and AdamW moments.
#ifndef MODEL_CUDA_CUDA_PRECISION_H_
#define MODEL_CUDA_CUDA_PRECISION_H_

#include "absl/status/statusor.h"
#include "accounting/dtype.h"
#include "model/cuda/gemm.h"

namespace model {
namespace cuda {

enum class CudaPrecision { kFp32, kTf32, kBf16 };

const char* PrecisionName(CudaPrecision p);  // "fp32", "tf32", "bf16"

// fp32, tf32, bf16; any other dtype is InvalidArgument naming it and the allowed ones.
absl::StatusOr<CudaPrecision> PrecisionOf(accounting::Dtype dtype);

// Storage of activations: bf16 for kBf16, else fp32.
StorageType ActivationStorage(CudaPrecision p);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_CUDA_PRECISION_H_
