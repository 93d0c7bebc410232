// Causal self-attention through cuDNN's fused scaled-dot-product attention (flash attention),
// forward and backward, bf16 only, as llm.c's cudnn_att.cpp does it with NVIDIA's cudnn-frontend
// graph API: Q, K and V read in place, with strides, out of the qkv GEMM's (B, T, QKV) output
// (q | k | v; K and V with NKV heads each for grouped-query attention, which cuDNN's SDPA takes
// natively: query head h reads K/V head h / (NH / NKV)); O written as (B, T, NH, HS) (= (B, T, C),
// what the projection reads); the softmax statistics (B, NH, T, 1) fp32 kept from forward for
// backward; causal mask; scale 1/sqrt(HS); dq, dk, dv written straight into the (B, T, QKV)
// gradient (dk, dv summed over each group by cuDNN). A shape's two graphs and
// its cuDNN handle are built once per process and device (the slow part) and cached: every
// object for that shape shares them; the caller gives each call one workspace of
// workspace_bytes().
//
// libcudnn.so.9 is opened at run time (cudnn-frontend's dynamic loading): a binary starts, and
// the kernels run, on a machine without cuDNN. Every cuDNN or frontend failure comes back as an
// absl::Status naming the shape; nothing here aborts. Host-only header.
// Where the build has no cuDNN (no toolkit, or the kernel emulator) attention_cudnn_none.cc
// stands in: ProbeCudnn says why and Create is Unavailable.
// Legend: B batch, T sequence, NH query heads, NKV K/V heads, HS head size, C = NH * HS,
// QKV = C + 2 * NKV * HS (3C when NKV = NH).
#ifndef MODEL_CUDA_ATTENTION_CUDNN_H_
#define MODEL_CUDA_ATTENTION_CUDNN_H_

#include <cstdint>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/cuda/attention_choice.h"
#include "model/cuda/attention_compare.h"
#include "model/cuda/bf16.h"

namespace model {
namespace cuda {

// Opens libcudnn.so.9 (once per process) and reads cudnnGetVersion(); no device needed.
CudnnStatus ProbeCudnn();

class CudnnAttention {
 public:
  // The forward (training: with statistics) and backward graphs for `shape` on the current
  // device, built at the first call for that shape and device, then taken from the cache. Errors: cuDNN not
  // loaded (Unavailable), a shape or device cuDNN does not support, or any other cuDNN failure (Unavailable
  // or Internal, naming the shape and cuDNN's message).
  static absl::StatusOr<std::unique_ptr<CudnnAttention>> Create(const AttentionShape& shape);
  ~CudnnAttention();
  CudnnAttention(const CudnnAttention&) = delete;
  CudnnAttention& operator=(const CudnnAttention&) = delete;

  const AttentionShape& shape() const;
  // Bytes of device workspace both graphs need (the larger of the two; may be 0).
  int64_t workspace_bytes() const;

  // out (B, T, NH, HS) <- causal softmax(q k^T / sqrt(HS)) v, q | k | v from qkv (B, T, QKV);
  // stats (B, NH, T) fp32: each row's log-sum-exp, for Backward. Queued on the default stream.
  absl::Status Forward(Bf16* out, float* stats, const Bf16* qkv, void* workspace);
  // dqkv (B, T, QKV) OVERWRITTEN with dq | dk | dv, from dout (B, T, NH, HS) and Forward's
  // qkv, out and stats.
  absl::Status Backward(Bf16* dqkv, const Bf16* dout, const Bf16* qkv, const Bf16* out, const float* stats,
                        void* workspace);

  struct Impl;  // the handle and the graphs (attention_cudnn.cu)

 private:
  explicit CudnnAttention(std::shared_ptr<const Impl> impl);
  std::shared_ptr<const Impl> impl_;
};

// The FLOPs of the causal triangle that cuDNN's flash attention computes, reported to
// accounting::CountMatmul (as the kernels path reports what it issues; HFU). Per head, with
// P = T(T+1)/2 query-key pairs on or below the diagonal: forward q.k and p.v, 2 * P * HS each
// ("attention_qk", "attention_av"); backward recomputes q.k ("attention_qk_recompute") and
// computes dp = do.v, dv, dq, dk ("attention_datt", "attention_dv", "attention_dq",
// "attention_dk"), 2 * P * HS each. About half the T x T work of unmasked attention; cuDNN's
// tiles on the diagonal issue a little more than the triangle, which is not counted.
void CountCudnnAttentionForwardFlops(const AttentionShape& shape);
void CountCudnnAttentionBackwardFlops(const AttentionShape& shape);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_ATTENTION_CUDNN_H_
