// The CUDA model's device memory, planned once for a batch of B sequences of T tokens: fp32
// master weights, gradients and AdamW moments (the param_layout.h layout), the bf16 weight copy
// (bf16 mode), the activations forward keeps for backward, and the scratch buffers reused
// across layers. One allocation holds everything; each tensor (and each layer's slice of a
// per-layer tensor) starts 256-byte aligned. The cuBLASLt workspace is a second allocation,
// counted here too. Pure arithmetic: cuda_memory_test.cc checks it without a GPU.
// The config's switches (gpt_config.h) shape it: QKV = C + 2 * NKV * hs columns for the qkv
// GEMM (3C with as many K/V heads as query heads), FC = F (GeLU) or 2F (SwiGLU: gate | up) for
// the up GEMM and F for the activation; RMSNorm keeps no means; RoPE adds its tables. A tensor
// a config does not use is absent (layers 0, no bytes), so GPT-2's plan is what it always was.
// Legend: L layers, B batch, T sequence, C width, NH query heads, NKV K/V heads, hs head size,
// F the MLP's hidden width, Vp padded vocab, BT = B*T.
#ifndef MODEL_CUDA_CUDA_MEMORY_H_
#define MODEL_CUDA_CUDA_MEMORY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "accounting/gpt_flops.h"
#include "model/cuda/gemm.h"
#include "model/gpt_config.h"
#include "model/gpt_memory.h"  // FormatBytes

namespace model {
namespace cuda {

enum class CudaTensor : int {
  // parameter-sized, fp32 (kParamsBf16: bf16, bf16 mode only)
  kParams,
  kGrads,
  kAdamM,
  kAdamV,
  kParamsBf16,
  // activations kept from forward to backward (storage type S unless noted)
  kEncoded,    // (B, T, C)
  kLn1,        // L x (B, T, C)
  kLn1Mean,    // L x (B, T) fp32 (LayerNorm only)
  kLn1Rstd,    // L x (B, T) fp32
  kQkvr,       // L x (3, B, NH, T, hs) q | k | v permuted, K/V expanded to NH heads (cuDNN: below)
  kAtt,        // L x (B, NH, T, T)
  kAtty,       // L x (B, T, C)
  kResidual2,  // L x (B, T, C)
  kLn2,        // L x (B, T, C)
  kLn2Mean,    // L x (B, T) fp32 (LayerNorm only)
  kLn2Rstd,    // L x (B, T) fp32
  kFch,        // L x (B, T, FC) the up GEMM's output: GeLU's input, or SwiGLU's gate | up
  kFchGelu,    // L x (B, T, F) the activation's output (GeLU's or SwiGLU's)
  kResidual3,  // L x (B, T, C)
  kLnf,        // (B, T, C)
  kLnfMean,    // (B, T) fp32 (LayerNorm only)
  kLnfRstd,    // (B, T) fp32
  kLogits,     // (B, T, Vp); dlogits after backward
  kLse,        // (B, T) fp32
  kLosses,     // (B, T) fp32
  kInputs,     // (B, T) int32
  kTargets,    // (B, T) int32
  // scratch, reused by every layer
  kQkv,        // (B, T, QKV) forward: qkv matmul output (RoPE rotates q and k in place)
  kVaccum,     // (B, NH, T, hs) forward: attention output before unpermute
  kDResidual,  // (B, T, C) backward: gradient of the residual stream
  kDBtc,       // (B, T, C) backward: d ln_f, d ln, d atty
  kDFch,       // (B, T, FC) backward
  kDQkv,       // (B, T, QKV) backward
  kDQkvr,      // (3, B, NH, T, hs) backward
  kDAtt,       // (B, NH, T, T) backward
  kDVaccum,    // (B, NH, T, hs) backward
  kProj,       // (B, T, C) forward: projection output when the residual add is not fused
  // per-step input beside the tokens: written by the host before each step (a CUDA graph
  // replays its kernels with the arguments they were captured with, so it reads these instead)
  kAdamWArgs,  // (8) fp32: one AdamWStepArgs (adamw_cuda.h)
  // cuDNN attention only (AttentionMemory::cudnn)
  kAttStats,        // L x (B, NH, T) fp32: softmax log-sum-exp per row, forward to backward
  kCudnnWorkspace,  // cuDNN's workspace, bytes
  // the config's switches (absent otherwise)
  kRopeCos,  // (T, hs / 2) fp32: RoPE's tables (rope_cuda.h), written once at creation
  kRopeSin,  // (T, hs / 2) fp32
  kDFchAct,  // (B, T, F) backward, SwiGLU: the down projection's input gradient (GeLU's is in place)
};
inline constexpr int kNumCudaTensors = 43;
inline constexpr int64_t kAdamWArgsFloats = 8;

enum class MemoryGroup : int { kParams, kGrads, kAdamW, kWeightCopy, kActivations, kScratch };
inline constexpr int kNumMemoryGroups = 6;

struct PlannedTensor {
  CudaTensor id;
  std::string name;
  MemoryGroup group;
  int64_t elements = 0;  // per layer for per-layer tensors
  int64_t element_bytes = 0;
  int64_t layers = 1;        // L for per-layer tensors, else 1; 0 when absent
  int64_t layer_stride = 0;  // bytes between layer slices (a multiple of 256)
  int64_t offset = 0;        // bytes from the allocation start (a multiple of 256)
  int64_t bytes() const { return layers * layer_stride; }
};

struct CudaMemoryPlan {
  StorageType storage = StorageType::kFp32;
  std::vector<PlannedTensor> tensors;  // indexed by CudaTensor
  int64_t arena_bytes = 0;             // the one allocation
  int64_t workspace_bytes = 0;         // cuBLASLt's
  int64_t group_bytes[kNumMemoryGroups] = {};
  int64_t total_bytes() const { return arena_bytes + workspace_bytes; }
  const PlannedTensor& tensor(CudaTensor id) const { return tensors[static_cast<int>(id)]; }
  // "params 497.8 MB, grads 497.8 MB, AdamW m+v 995.6 MB, bf16 weights 248.9 MB,
  //  activations 8.69 GB, scratch 1.12 GB, cuBLASLt workspace 33.6 MB: total 12.07 GB"
  std::string Describe() const;
};

inline constexpr int64_t kTensorAlignment = 256;

// How attention runs, as far as memory goes. With cuDNN (attention_cudnn.h) the statistics
// (kAttStats) and cuDNN's workspace join the plan and the kernels' tensors leave it (kAtt,
// kQkv, kVaccum, kDQkvr, kDAtt, kDVaccum: the (B, NH, T, T) matrices are never materialised);
// kQkvr then holds each layer's qkv GEMM output as it came (RoPE applied), (B, T, QKV), which
// cuDNN reads in place in forward and backward (K/V not expanded).
struct AttentionMemory {
  bool cudnn = false;
  int64_t cudnn_workspace_bytes = 0;
};

// Errors as ValidateRunShape. storage: of activations and the weight copy (kBf16 adds the copy).
// recompute: the plan with the per-layer tensors a level recomputes kept once, as the CPU model
// does (activation_layout.h, ActivationLayersKept: the MLP's activation; the attention's scores,
// statistics and output; every per-layer tensor but the block outputs): the CUDA model's plan at
// its CudaGptOptions::recompute, and //tools:estimate's ledger.
absl::StatusOr<CudaMemoryPlan> PlanCudaMemory(const GptConfig& config, int B, int T, StorageType storage,
                                              int64_t workspace_bytes, const AttentionMemory& attention = {},
                                              accounting::Recompute recompute = accounting::Recompute::kNone);

// ResourceExhausted before any allocation when the plan needs more than `free_bytes`; the
// message says how much is needed (and for what) and how much is free of how much.
absl::Status CheckFits(const CudaMemoryPlan& plan, int64_t free_bytes, int64_t total_bytes,
                       const std::string& device_name);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_CUDA_MEMORY_H_
