// The CUDA GptModel for the benchmarks and DDP: the train step of every family of gpt_config.h
// (GPT-2, Llama) on one GPU through cuBLASLt (cuda_gpt.h describes the kernels, fusions and
// precision modes). Host-only header; where the
// build has no CUDA toolkit, MakeCudaModel makes its checks, then returns Unavailable.
//
//   absl::StatusOr<std::unique_ptr<model::GptModel>> m =
//       model::MakeCudaModel(config, /*B=*/12, /*T=*/1024, seed, accounting::Dtype::kBf16);
//
// dtype: kFp32  fp32 everything, GEMMs in true fp32 (CUBLAS_COMPUTE_32F, no TF32), GeLU as a
//               kernel: matches the CPU model to ~1e-5;
//        kTf32  fp32 storage, GEMMs on TF32 tensor cores;
//        kBf16  bf16 activations and GEMM inputs, fp32 accumulation, fp32 master weights,
//               gradients and AdamW moments; GeLU fused into cuBLASLt's epilogues when the
//               library has them for these shapes.
// options.attention: kKernels  the attention kernels (attention_cuda.h), every dtype;
//                    kCudnn    cuDNN's fused flash attention (attention_cudnn.h), bf16 only;
//                    kAuto     cuDNN in bf16 when libcudnn.so.9 opens at run time and passes a
//                              start-up check against the kernels (output, dq, dk, dv at a small
//                              shape), else the kernels; CudaAttentionChoice says which and why.
// options.cuda_graph: TrainStep replays one captured CUDA graph of forward, backward and AdamW
// (cuda_gpt.h, "CUDA graph").
// Everything runs on the calling thread's default stream (cudaStreamPerThread; model_stream.cuh
// says why), cuDNN's attention included; loss() and Synchronize() wait for the device.
// params_data() / grads_data() are fp32 device pointers.
#ifndef MODEL_CUDA_CUDA_MODEL_H_
#define MODEL_CUDA_CUDA_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "accounting/dtype.h"
#include "accounting/gpt_flops.h"
#include "model/cuda/attention_choice.h"
#include "model/cuda/cuda_memory.h"
#include "model/cuda/cuda_precision.h"
#include "model/gpt_config.h"
#include "model/gpt_model.h"

namespace model {

struct CudaModelOptions {
  cuda::AttentionImpl attention = cuda::AttentionImpl::kAuto;  // gpt_step --attention_impl
  bool cuda_graph = false;                                     // gpt_step --cuda_graph
  accounting::Recompute recompute = accounting::Recompute::kNone;  // gpt_step --recompute (cuda_gpt.h)
};

// Errors, checked in this order: dtype not fp32/tf32/bf16 (InvalidArgument), invalid config or
// run shape (InvalidArgument), no usable CUDA device (Unavailable, with sysinfo::ProbeCuda()'s
// reason), not enough free device memory (ResourceExhausted, before any allocation: says how
// much is needed and how much is free), a failed allocation (Internal); for attention kCudnn, a
// dtype other than bf16 (InvalidArgument), no usable cuDNN (Unavailable) or cuDNN's error for
// this shape.
// Uses the calling thread's current device (DDP ranks select theirs first).
absl::StatusOr<std::unique_ptr<GptModel>> MakeCudaModel(const GptConfig& config, int B, int T, uint64_t seed,
                                                        accounting::Dtype dtype,
                                                        const CudaModelOptions& options = CudaModelOptions());

// The build-specific half of MakeCudaModel, which calls it after the checks that need no device
// (the dtype as a precision, the run shape): the model on the current device (cuda_model.cc), or
// Unavailable where the build has no CUDA toolkit (cuda_model_none.cc). Call MakeCudaModel
// instead.
absl::StatusOr<std::unique_ptr<GptModel>> MakeCudaModelOnDevice(const GptConfig& config, int B, int T,
                                                                uint64_t seed, cuda::CudaPrecision precision,
                                                                const CudaModelOptions& options);

// The memory MakeCudaModel would allocate, as text ("params 497.8 MB, ..., total 12.07 GB"),
// without touching a device. Errors as the first two of MakeCudaModel.
absl::StatusOr<std::string> DescribeCudaMemory(const GptConfig& config, int B, int T,
                                               accounting::Dtype dtype);

// For a model from MakeCudaModel: precision, device, fusions, GEMM library and memory plan;
// "" for any other model.
std::string DescribeCudaModel(const GptModel& model);

// For a model from MakeCudaModel: the attention it runs and why, one line for the run's choices
// ("attention_impl: cudnn (auto: cuDNN 9.19.0 flash attention matched ...)"); "" for any other.
std::string CudaAttentionChoice(const GptModel& model);

// For a model from MakeCudaModel: the memory plan it allocated (cuda_memory.h); null for any other
// model (and in a build without the CUDA model).
const cuda::CudaMemoryPlan* CudaModelMemoryPlan(const GptModel& model);

// The current device's memory in use (cudaMemGetInfo: total - free; every process's allocations
// and CUDA contexts on it), or -1 when unreadable (no device, a build without the CUDA model).
int64_t CudaDeviceMemoryInUse();

}  // namespace model

#endif  // MODEL_CUDA_CUDA_MODEL_H_
