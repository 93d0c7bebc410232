// The train-step benchmark's options: raw flag values in, a validated run description out.
//
// Resolution is a pure function of the flags and the machine's CUDA inventory, so the defaults
// and every error are unit-tested without running anything. Defaults follow nanoGPT's bench.py
// on a GPU (GPT-2 124M, batch 12, seq 1024, bf16, 10 warm-up + 20 timed steps) and a small CPU run
// without one (batch 4, seq 64, fp32, a few steps); each choice is recorded with its reason.
#ifndef MACRO_STEP_OPTIONS_H_
#define MACRO_STEP_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "accounting/dtype.h"
#include "accounting/gpt_flops.h"
#include "model/cpu_gemm_backend.h"
#include "model/cuda/attention_choice.h"
#include "model/gpt_config.h"
#include "sysinfo/cuda_info.h"

namespace macro {

// Flag values as given. 0, -1 or "" mean "not given: use the default".
struct RawStepFlags {
  std::string preset = "gpt2";
  int layers = 0, heads = 0, width = 0, vocab = 0, block = 0;
  int kv_heads = 0, mlp_hidden = 0;  // GQA's K/V heads and the MLP's hidden width (0: the preset's)
  int seq = 0, batch = 0;
  std::string bias;  // "", "true", "false"
  bool real_data = false;
  std::string data;  // token file (nanoGPT uint16 format)
  bool compare_data = false;
  uint64_t seed = 1337;
  std::string device = "auto";  // auto | cpu | cuda
  std::string dtype = "auto";   // auto | fp32 | bf16 | fp16
  int warmup_steps = -1, steps = -1;
  int threads = 0;
  std::string cpu_gemm;  // "", "auto", "onednn", "onednn_sgemm", "openblas"
  bool profile = false;
  std::string profile_out = "gpt_step_trace.json";
  std::string ceilings;                 // measured-ceilings JSON from //micro:ceilings
  std::string gemm_rates;               // a GEMM-rate cache (the ceilings file's format), read and added to
  double peak_flops = 0;                // explicit peak, FLOP/s
  std::string attention = "full";       // full | causal
  std::string attention_impl = "auto";  // auto | cudnn | kernels
  double lr = 6e-4, weight_decay = 0.1, beta1 = 0.9, beta2 = 0.95;
  bool cuda_graph = false;  // gpt_step: the CUDA step as one captured graph
  std::string recompute = "none";  // none | gelu | swiglu | attention | block | all
};

struct StepOptions {
  model::GptConfig config;
  int batch = 0, seq = 0;
  std::string device;  // "cpu" or "cuda"
  accounting::Dtype dtype = accounting::Dtype::kFp32;
  int warmup_steps = 0, steps = 0;
  int threads = 0;                                                  // 0: every core
  model::CpuGemmBackend cpu_gemm = model::CpuGemmBackend::kAuto;  // the CPU model's GEMMs
  bool real_data = false;
  std::string data;
  bool compare_data = false;
  uint64_t seed = 0;
  bool profile = false;
  std::string profile_out;
  std::string ceilings;
  std::string gemm_rates;  // CPU fp32: GEMM rates read from it and the measured ones added (sweep's cache)
  double peak_flops = 0;
  accounting::AttentionConvention convention = accounting::AttentionConvention::kFull;
  // The CUDA model's attention (model/cuda/attention_choice.h); auto is decided at model creation.
  model::cuda::AttentionImpl attention_impl = model::cuda::AttentionImpl::kAuto;
  double lr = 0, weight_decay = 0, beta1 = 0, beta2 = 0;
  // CUDA only: forward, backward and AdamW captured as one CUDA graph at warm-up step 2 and
  // replayed every step after (model/cuda/cuda_gpt.h, "CUDA graph"); needs >= 2 warm-up steps.
  bool cuda_graph = false;
  // What the backward computes again instead of keeping (accounting::Recompute; the CPU model,
  // model/cpu_gpt.h): HFU counts it, MFU does not.
  accounting::Recompute recompute = accounting::Recompute::kNone;
  // --recompute=all (gpt_step): every level the preset has, back to back, one line each.
  bool recompute_all = false;
  // "device: cpu (no CUDA device: ...)", "batch: 4 (CPU default)", ...
  std::vector<std::string> choices;

  int64_t tokens_per_step() const { return static_cast<int64_t>(batch) * seq; }
  // "gpt2/cpu/fp32/B:4/T:64": the benchmark case name's suffix.
  std::string CaseName() const;
};

// Profiler schedule (the seed's torch.profiler schedule): wait, warm-up, then active steps.
constexpr int kProfileWait = 5, kProfileWarmup = 5, kProfileActive = 5;

// The recompute levels that mean something for `config`, in --recompute=all's order: none, gelu
// (GeLU MLP) or swiglu (SwiGLU MLP), attention, block.
std::vector<accounting::Recompute> RecomputeLevels(const model::GptConfig& config);
// The flag's name of a level for `config`: "none", "gelu" or "swiglu", "attention", "block".
std::string RecomputeFlagName(accounting::Recompute r, const model::GptConfig& config);

absl::StatusOr<StepOptions> ResolveStepOptions(const RawStepFlags& flags, const sysinfo::CudaInventory& cuda);

}  // namespace macro

#endif  // MACRO_STEP_OPTIONS_H_
