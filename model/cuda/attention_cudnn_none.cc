// attention_cudnn.h where the build has no cuDNN: the kernel emulator's build (the host tests),
// and a toolkit without cudnn.h. ProbeCudnn says why; Create is Unavailable, so no object exists
// and the methods below are never reached.
#include "absl/strings/str_cat.h"
#include "model/cuda/attention_cudnn.h"

namespace model {
namespace cuda {

#ifndef MODEL_CUDA_NO_CUDNN_REASON
#define MODEL_CUDA_NO_CUDNN_REASON \
  "this build has no cuDNN (the kernel emulator, or a CUDA toolkit without cudnn.h)"
#endif

struct CudnnAttention::Impl {
  AttentionShape shape;
};

CudnnStatus ProbeCudnn() {
  CudnnStatus s;
  s.reason = MODEL_CUDA_NO_CUDNN_REASON;
  return s;
}

absl::StatusOr<std::unique_ptr<CudnnAttention>> CudnnAttention::Create(const AttentionShape& shape) {
  return absl::UnavailableError(
      absl::StrCat("cuDNN attention at ", shape.ToString(), ": ", MODEL_CUDA_NO_CUDNN_REASON));
}

CudnnAttention::CudnnAttention(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
CudnnAttention::~CudnnAttention() = default;
const AttentionShape& CudnnAttention::shape() const { return impl_->shape; }
int64_t CudnnAttention::workspace_bytes() const { return 0; }

absl::Status CudnnAttention::Forward(Bf16*, float*, const Bf16*, void*) {
  return absl::InternalError("cuDNN attention: not in this build");
}

absl::Status CudnnAttention::Backward(Bf16*, const Bf16*, const Bf16*, const Bf16*, const float*, void*) {
  return absl::InternalError("cuDNN attention: not in this build");
}

}  // namespace cuda
}  // namespace model
