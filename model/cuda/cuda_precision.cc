// Precision modes of the CUDA model.
#include "model/cuda/cuda_precision.h"

#include "absl/strings/str_cat.h"

namespace model {
namespace cuda {

const char* PrecisionName(CudaPrecision p) {
  switch (p) {
    case CudaPrecision::kFp32: return "fp32";
    case CudaPrecision::kTf32: return "tf32";
    case CudaPrecision::kBf16: return "bf16";
  }
  return "?";
}

absl::StatusOr<CudaPrecision> PrecisionOf(accounting::Dtype dtype) {
  switch (dtype) {
    case accounting::Dtype::kFp32: return CudaPrecision::kFp32;
    case accounting::Dtype::kTf32: return CudaPrecision::kTf32;
    case accounting::Dtype::kBf16: return CudaPrecision::kBf16;
    default: break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "dtype=", accounting::DtypeName(dtype), " is not supported by the CUDA model: use fp32, tf32 or bf16"));
}

StorageType ActivationStorage(CudaPrecision p) {
  return p == CudaPrecision::kBf16 ? StorageType::kBf16 : StorageType::kFp32;
}

}  // namespace cuda
}  // namespace model
