// Which causal attention the CUDA model runs: the kernels (attention_cuda.h, every precision) or
// cuDNN's fused flash attention (attention_cudnn.h, bf16 only). The choice is a pure function of
// what was asked (--attention_impl), the precision, what the cuDNN probe found at run time, and,
// for `auto`, a start-up self-check (attention_selfcheck.h) that compares cuDNN's output and
// gradients with the kernels' at a small shape. Host-only and device-free: tested here.
#ifndef MODEL_CUDA_ATTENTION_CHOICE_H_
#define MODEL_CUDA_ATTENTION_CHOICE_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "model/cuda/cuda_precision.h"

namespace model {
namespace cuda {

enum class AttentionImpl { kAuto, kCudnn, kKernels };

const char* AttentionImplName(AttentionImpl impl);  // "auto", "cudnn", "kernels"

// "auto", "cudnn" or "kernels"; anything else is InvalidArgument naming `flag`, the value and
// the allowed ones.
absl::StatusOr<AttentionImpl> ParseAttentionImpl(absl::string_view name,
                                                 absl::string_view flag = "attention_impl");

// The lowest cuDNN (cudnnGetVersion) whose fused attention the model uses: 9.0.0.
inline constexpr int64_t kMinCudnnVersion = 90000;

// What the run-time probe found (attention_cudnn.h: ProbeCudnn).
struct CudnnStatus {
  bool loaded = false;  // the library opened and answered cudnnGetVersion
  int64_t version = 0;  // cudnnGetVersion(): 91900 for 9.19.0
  std::string reason;   // why not loaded
};

// 91900 -> "9.19.0" (cuDNN 9's encoding: major * 10000 + minor * 100 + patch).
std::string CudnnVersionName(int64_t version);

// cudnn-frontend 1.19, with cuDNN 9.15.0 or older and a sequence length T that is not a multiple
// of 128, adds a padding-mask workaround to the graph; its execute then copies a host vector to
// the workspace with cudaMemcpyAsync from pageable memory, which a CUDA graph capture does not
// allow (scaled_dot_product_flash_attention.h: has_workaround_padding_mask).
inline constexpr int64_t kLastCudnnWithPaddingWorkaround = 91500;  // 9.15.0
// "" when cuDNN's attention at T can be captured; else why not, naming T and the version.
std::string CudnnCaptureHazard(int64_t cudnn_version, int64_t T);

// What the run will do with the attention, beyond its precision.
struct AttentionUse {
  bool cuda_graph = false;  // the step is captured into a CUDA graph (--cuda_graph)
  int64_t seq = 0;          // T, the sequence length
};

struct AttentionDecision {
  bool cudnn = false;
  // One line for the run's choices: "attention_impl: cudnn (auto: cuDNN 9.19.0 matched the
  // kernels ...)" or "attention_impl: kernels (auto: ... so the kernels)".
  std::string line;
};

// The decision, in this order:
//   kernels asked                  -> kernels;
//   precision not bf16             -> kernels for auto; InvalidArgument naming it for cudnn;
//   cuDNN not loaded or too old    -> kernels for auto (the reason in the line); Unavailable for cudnn;
//   a --cuda_graph capture and a T that cuDNN's version cannot capture (CudnnCaptureHazard)
//                                  -> kernels for auto (the reason in the line); InvalidArgument
//                                     naming T and the version for cudnn;
//   cudnn asked                    -> cuDNN (no self-check: the user chose it);
//   auto                           -> self_check() (called only here): OK -> cuDNN, else kernels
//                                     with its message.
absl::StatusOr<AttentionDecision> DecideAttention(AttentionImpl requested, CudaPrecision precision,
                                                  const CudnnStatus& cudnn,
                                                  const std::function<absl::Status()>& self_check,
                                                  const AttentionUse& use = {});

// What cuDNN's backward stores, appended to the choice line of a model that runs it: the graph asks
// for cuDNN's deterministic algorithm (bit-for-bit repeatable dq, as llm.c does), whose workspace
// can grow with B * NH * T * T on some GPUs (dq accumulated per key block; reported for Hopper),
// so the line gives the workspace cuDNN asked for beside one (B, NH, T, T) fp32 matrix:
// "; backward: cuDNN's deterministic algorithm, workspace 1152.0 MiB (1.00x one (B, NH, T, T) fp32
// matrix, 1152.0 MiB)".
std::string CudnnBackwardNote(int64_t workspace_bytes, int64_t B, int64_t NH, int64_t T);

// What a run's JSON records of the attention it ran (the context key mlbench_attention_impl of
// gpt_step and ddp_step): "cudnn" or "kernels" from a CUDA model's choice line
// (AttentionDecision::line), "cpu" from "" (the CPU model has one attention, and no line), and
// "unknown" from a line of another form. tools/gpu/gpu_check.sh reads it: an "auto" run that
// did not get cuDNN where cuDNN is installed fails there.
std::string AttentionImplRecord(absl::string_view choice_line);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_ATTENTION_CHOICE_H_
