// The start-up self-check behind --attention_impl=auto (attention_choice.h): cuDNN's fused
// attention and the kernels run on the same random bf16 inputs at a small shape with the model's
// heads, K/V heads and head size; their output and gradients (dq, dk, dv) must agree within bf16 tolerance
// (attention_compare.h). Host code over device_api.h and the launchers, so it runs on a GPU and,
// with the kernels on both sides, in the kernel emulator (attention_selfcheck_test.cc).
#ifndef MODEL_CUDA_ATTENTION_SELFCHECK_H_
#define MODEL_CUDA_ATTENTION_SELFCHECK_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/cuda/attention_compare.h"
#include "model/cuda/bf16.h"
#include "model/cuda/gemm.h"

namespace model {
namespace cuda {

// One causal attention implementation at a fixed shape, bf16, owning its device scratch.
class AttentionUnderTest {
 public:
  virtual ~AttentionUnderTest() = default;
  virtual std::string name() const = 0;
  // out (B, T, C) <- qkv (B, T, QKV) (attention_compare.h: q | k | v, NKV K/V heads); keeps what
  // Backward needs.
  virtual absl::Status Forward(Bf16* out, const Bf16* qkv) = 0;
  // dqkv (B, T, QKV) overwritten, from dout (B, T, C) and the qkv and out of the last Forward.
  virtual absl::Status Backward(Bf16* dqkv, const Bf16* dout, const Bf16* qkv, const Bf16* out) = 0;
};

// The kernels (attention_cuda.h) on `gemm` (not owned; must outlive the result).
absl::StatusOr<std::unique_ptr<AttentionUnderTest>> MakeKernelAttention(const AttentionShape& shape,
                                                                        GemmRunner* gemm);
// cuDNN (attention_cudnn.h), with its statistics and workspace; Unavailable where the build or
// the machine has no cuDNN.
absl::StatusOr<std::unique_ptr<AttentionUnderTest>> MakeCudnnAttention(const AttentionShape& shape);

// Runs `impl` forward and backward on random inputs drawn from `seed` (q, k, v and dout ~ N(0, 1),
// rounded to bf16) and returns its results as floats.
absl::StatusOr<AttentionResults> RunAttentionOnce(AttentionUnderTest& impl, const AttentionShape& shape,
                                                  uint64_t seed);

// Both on the same inputs; OK when `candidate` matches `reference` (CompareAttentionResults),
// else the comparison's error prefixed with the two names and the shape.
absl::Status CheckAttentionAgainst(AttentionUnderTest& reference, AttentionUnderTest& candidate,
                                   const AttentionShape& shape, uint64_t seed);

// The shape the start-up check runs: the model's NH, NKV and HS, B = 2, T = min(model T, 128).
AttentionShape SelfCheckShape(const AttentionShape& model);

// --attention_impl=auto's check: cuDNN against the kernels at SelfCheckShape(model), and cuDNN's
// graphs for the model's own shape must build. OK, or why cuDNN is not to be used.
absl::Status CudnnSelfCheck(const AttentionShape& model, GemmRunner* gemm);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_ATTENTION_SELFCHECK_H_
