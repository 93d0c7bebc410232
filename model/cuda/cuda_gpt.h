// The CUDA decoder-only transformer behind model::GptModel, every family of gpt_config.h (GPT-2;
// Llama: RMSNorm, RoPE, SwiGLU, grouped-query attention, no biases, untied LM head), on any
// GemmRunner: cuBLASLt on a GPU (MakeCudaModel, cuda_model.h), or the reference runner with the
// kernel emulator for host tests (cuda_gpt_emu_test.cc, cuda_llama_emu_test.cc). Host-only: every
// device operation goes through the launchers (*_cuda.h) and device_api.h.
//
// Precision modes: cuda_precision.h (in bf16 mode AdamW refreshes the bf16 weight copy).
// Fusions, each used when the option is on and the GemmRunner supports it for the planned
// shapes (asked once, at creation), else the separate kernels run: the bias is always in the
// GEMM epilogue; the two residual adds per layer go in as the GEMM's C input (beta = 1,
// options.fuse_residual); the GeLU as cuBLASLt's GELU_AUX_BIAS forward and DGELU backward
// epilogues (options.fuse_gelu; GeLU models only: SwiGLU is always its own kernel).
#ifndef MODEL_CUDA_CUDA_GPT_H_
#define MODEL_CUDA_CUDA_GPT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "accounting/gpt_flops.h"
#include "model/cuda/cuda_memory.h"
#include "model/cuda/cuda_precision.h"
#include "model/cuda/gemm.h"
#include "model/gpt_config.h"
#include "model/gpt_model.h"

namespace model {
namespace cuda {

struct CudaGptOptions {
  CudaPrecision precision = CudaPrecision::kBf16;
  bool fuse_gelu = true;            // cuBLASLt's GeLU epilogues where the runner supports them
  bool fuse_residual = true;        // residual adds as the projection GEMMs' C input
  int64_t attention_block = 0;      // query rows per attention block (0: kAttentionBlock)
  std::string device_name = "GPU";  // for messages
  // TrainStep as one CUDA graph: forward, zero-grad, backward and AdamW captured once, replayed
  // every step after (see "CUDA graph" below).
  bool cuda_graph = false;
  // cuDNN's fused flash attention (attention_cudnn.h, bf16 only) instead of the kernels; its
  // graphs are built at creation. attention_choice: why (attention_choice.h's line).
  bool cudnn_attention = false;
  std::string attention_choice;
  // Activation recomputation (the CPU model's levels, cpu_gpt.h): what a level recomputes is kept
  // for one layer only (cuda_memory.h plans it) and rerun inside that layer's backward, before the
  // layer's gradients: kActivation the MLP's activation (GeLU, or SwiGLU's product) from the kept
  // fc output, kAttention the attention core from the kept (roped) q, k, v, kBlock the whole
  // layer's forward from its kept input. The recomputed forward is the same kernels on the same
  // inputs, so the gradients are none's bit for bit; kActivation turns the GeLU epilogue fusion
  // off (the recompute is the GeLU kernel, whose bits the epilogue's need not match). kFull is
  // accounting's whole-forward figure, not a level: refused.
  accounting::Recompute recompute = accounting::Recompute::kNone;
};

// CUDA graph (options.cuda_graph; CUDA Programming Guide, "CUDA Graphs"). TrainStep(batch, opt,
// step) then runs:
//  - while no uncaptured step has completed: the four calls, uncaptured (cuBLASLt allocates its
//    workspace and picks its algorithms at a GEMM's first call, which a capture must not do);
//  - the next step: the capture, with a one-time check (graph_check.h): the parameters and AdamW
//    moments are saved to the host, one uncaptured step and a probe forward run, the state is
//    restored, then the step is captured into a graph and replayed, and the probe repeated; the
//    two must agree, else the step returns Internal. That replay is the step's result;
//  - every later step: the tokens and the AdamW arguments (adamw_cuda.h: AdamWStepArgs) are
//    copied to the device, then the graph is launched (one cudaGraphLaunch).
// What the graph bakes in does not change between steps: every pointer is into the one arena
// planned at creation; the step count, bias corrections and learning rate are read by the AdamW
// kernel from device memory; the tokens are read from the device buffers the host rewrites; the
// rest (1/BT, shapes, GEMM scalars) is constant. The batch upload and the loss read-back stay
// outside the graph. Forward / ZeroGrad / Backward / Update called separately run uncaptured as
// always. The op timer sees nothing of a replay (one graph, no op boundaries), and the FLOP
// counter counts the GEMMs when they are issued, i.e. in the uncaptured steps and at capture.
//
// Plans memory, checks it fits (device_api.h's DeviceMemoryInfo) BEFORE allocating, allocates
// once, initialises the parameters from `seed` exactly as the CPU model does (param_init.h, on
// the host, then copied). Errors: invalid config or run shape (InvalidArgument), not enough
// device memory (ResourceExhausted, with needed and free bytes), allocation failure (Internal);
// with options.cudnn_attention, a precision other than bf16 (InvalidArgument) and cuDNN's own
// errors building the graphs (naming the shape).
absl::StatusOr<std::unique_ptr<GptModel>> CreateCudaGpt(const GptConfig& config, int B, int T, uint64_t seed,
                                                        const CudaGptOptions& options,
                                                        std::unique_ptr<GemmRunner> gemm);

// For a model made by CreateCudaGpt: precision, GeLU fusion, GEMM runner and the memory plan
// ("cuda bf16, GeLU fused in cuBLASLt epilogues, gemm cublasLt; memory: params ..."); for any
// other model, an empty string.
std::string DescribeCudaGpt(const GptModel& model);

// For a model made by CreateCudaGpt: options.attention_choice; else "".
std::string CudaGptAttentionChoice(const GptModel& model);

// For a model made by CreateCudaGpt: the memory plan it allocated; else null.
const CudaMemoryPlan* CudaGptMemoryPlan(const GptModel& model);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_CUDA_GPT_H_
