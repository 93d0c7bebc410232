// The flags gpt_step and ddp_step share (same names, defaults and meaning), read into
// RawStepFlags for ResolveStepOptions. Path flags (--data, --profile_out, --ceilings) come out
// absolute, resolved where the user ran `bazel run` from (harness/user_path.h).
#include "macro/step_flags.h"

#include <cstdint>
#include <string>

#include "absl/flags/flag.h"
#include "harness/user_path.h"

ABSL_FLAG(std::string, preset, "gpt2",
          "model preset: gpt2 (124M), gpt2-medium, gpt2-large, gpt2-xl, test-tiny, test-mini (GPT-2: LayerNorm, "
          "learned positions, GeLU, biases, tied); llama3-8b, llama3.2-1b, llama-124m, llama-tiny (Llama: RMSNorm, "
          "RoPE, SwiGLU, grouped-query attention, no biases)");
ABSL_FLAG(int, layers, 0, "number of layers (0: the preset's)");
ABSL_FLAG(int, heads, 0, "attention heads; must divide --width (0: the preset's)");
ABSL_FLAG(int, width, 0, "embedding width C (0: the preset's)");
ABSL_FLAG(int, vocab, 0, "vocabulary size, padded to a multiple of 64 for the matmuls (0: the preset's)");
ABSL_FLAG(int, block, 0, "block size: the longest sequence, rows of the position table (0: the preset's)");
ABSL_FLAG(int, kv_heads, 0,
          "K/V heads (grouped-query attention); must divide --heads; = heads is multi-head (0: the preset's)");
ABSL_FLAG(int, mlp_hidden, 0, "the MLP's hidden width F (GPT-2: 4 * width) (0: the preset's)");
ABSL_FLAG(int, seq, 0, "sequence length T actually trained, <= --block (crop) (0: block on CUDA, 64 on CPU)");
ABSL_FLAG(int, batch, 0, "batch size B (per rank and micro-step in ddp_step) (0: 12 on CUDA, 4 on CPU)");
ABSL_FLAG(std::string, bias, "", "Linear and LayerNorm biases: true or false (empty: the preset's)");
ABSL_FLAG(bool, real_data, false, "read batches from the token file --data (else one fixed random batch)");
ABSL_FLAG(std::string, data, "",
          "token file in nanoGPT's format (flat uint16); make one with //tools:make_tokens");
ABSL_FLAG(bool, compare_data, false,
          "run with the fixed random batch and with --data, and print what the data path costs");
ABSL_FLAG(uint64_t, seed, 1337,
          "seed for the parameters and the batches (ddp_step: rank 0's parameters, batches seed + rank)");
ABSL_FLAG(std::string, device, "auto", "auto (cuda if a GPU is present, else cpu), cpu or cuda");
ABSL_FLAG(std::string, dtype, "auto",
          "auto (bf16 on CUDA, fp16 without bf16, fp32 on CPU), fp32 or bf16 (on the CPU: bf16 GEMM operands with fp32 "
          "accumulation and fp32 master weights, MFU against the measured CPU bf16 peak)");
ABSL_FLAG(int, warmup_steps, -1, "untimed steps first (-1: 10 on CUDA, 3 on CPU)");
ABSL_FLAG(int, steps, -1, "timed steps (-1: 20 on CUDA, 10 on CPU)");
ABSL_FLAG(std::string, cpu_gemm, "",
          "CPU GEMM library: auto (the default when empty: per GEMM shape the fastest of the three, measured at "
          "start-up or read from --ceilings), onednn (oneDNN's matmul primitive, C = A*B), onednn_sgemm "
          "(oneDNN's dnnl_sgemm, the column-major C^T = B^T*A^T) or openblas (OpenBLAS's sgemm, also C^T); the "
          "summary lists each shape's rates and choice");
ABSL_FLAG(int, threads, 0,
          "CPU threads for OpenMP (the model's loops, oneDNN) and OpenBLAS, at most the CPUs this process may "
          "run on (0: every core; in ddp_step, the cores / ranks)");
ABSL_FLAG(bool, profile, false,
          "after the run: wait 5, warm up 5, record 5 steps of per-op timing; write --profile_out and print "
          "the top ops");
ABSL_FLAG(std::string, profile_out, "gpt_step_trace.json",
          "Chrome trace file for --profile (Perfetto, chrome://tracing); relative to the folder bazel run "
          "was started from");
ABSL_FLAG(std::string, ceilings, "",
          "measured-ceilings JSON from `bazel run //micro:ceilings -- --ceilings_out=FILE`: MFU against the "
          "measured peak");
ABSL_FLAG(std::string, gemm_rates, "",
          "CPU fp32 step: a GEMM-rate cache, a JSON file in the --ceilings format (it may be the --ceilings "
          "file itself; a missing file is created): the step's GEMM rates are read from it where it has them, "
          "and the rates this run measures at start-up are added to it, so a later run of the same shapes "
          "measures none (//tools:sweep keeps one); relative to the folder bazel run was started from");
ABSL_FLAG(double, peak_flops, 0,
          "peak FLOP/s of ONE device to divide by (a GPU, or the whole CPU: a run on fewer threads than "
          "cores, e.g. a ddp_step rank, gets its share), overriding the datasheet or the measured CPU peak");
ABSL_FLAG(std::string, attention, "full",
          "attention FLOPs convention: full (12·L·C·T, nanoGPT/PaLM) or causal (6·L·C·T, llm.c)");
ABSL_FLAG(
    std::string, attention_impl, "auto",
    "the CUDA model's attention: auto (bf16: cuDNN's fused flash attention when libcudnn.so.9 opens and "
    "passes a start-up check against the kernels, else the kernels; the run's choices say which), "
    "cudnn (bf16 only) or kernels");
ABSL_FLAG(double, lr, 6e-4, "AdamW learning rate");
ABSL_FLAG(double, weight_decay, 0.1, "AdamW weight decay (2-D weights only)");
ABSL_FLAG(double, beta1, 0.9, "AdamW beta1");
ABSL_FLAG(double, beta2, 0.95, "AdamW beta2");
ABSL_FLAG(
    bool, cuda_graph, false,
    "gpt_step on CUDA: capture forward, backward and AdamW as one CUDA graph at warm-up step 2 (checked "
    "once against an uncaptured step) and replay it every step after; needs --warmup_steps >= 2, not "
    "with --profile or --device=cpu (ddp_step: not supported)");

ABSL_FLAG(std::string, recompute, "none",
          "activation recomputation (the CPU model in fp32, the CUDA model in every dtype): none (keep every activation), gelu (GPT-2: keep the MLP's "
          "pre-activation, recompute GeLU in the backward; llm.c's level 1) or swiglu (Llama: keep the gate and "
          "up projections, recompute SwiGLU's product), attention (keep q, k, v; recompute the attention core: "
          "Megatron-LM's selective), block (keep each block's input, rerun its forward inside its backward: "
          "Megatron-LM's full), or all (gpt_step: every level back to back, a line each against none). HFU counts "
          "the recomputed FLOPs, MFU does not; the summary prints both and the memory ledger");

namespace macro {

RawStepFlags ReadStepFlags() {
  RawStepFlags f;
  f.preset = absl::GetFlag(FLAGS_preset);
  f.layers = absl::GetFlag(FLAGS_layers);
  f.kv_heads = absl::GetFlag(FLAGS_kv_heads);
  f.mlp_hidden = absl::GetFlag(FLAGS_mlp_hidden);
  f.heads = absl::GetFlag(FLAGS_heads);
  f.width = absl::GetFlag(FLAGS_width);
  f.vocab = absl::GetFlag(FLAGS_vocab);
  f.block = absl::GetFlag(FLAGS_block);
  f.seq = absl::GetFlag(FLAGS_seq);
  f.batch = absl::GetFlag(FLAGS_batch);
  f.bias = absl::GetFlag(FLAGS_bias);
  f.real_data = absl::GetFlag(FLAGS_real_data);
  f.data = harness::UserPath(absl::GetFlag(FLAGS_data));
  f.compare_data = absl::GetFlag(FLAGS_compare_data);
  f.seed = absl::GetFlag(FLAGS_seed);
  f.device = absl::GetFlag(FLAGS_device);
  f.dtype = absl::GetFlag(FLAGS_dtype);
  f.warmup_steps = absl::GetFlag(FLAGS_warmup_steps);
  f.steps = absl::GetFlag(FLAGS_steps);
  f.threads = absl::GetFlag(FLAGS_threads);
  f.cpu_gemm = absl::GetFlag(FLAGS_cpu_gemm);
  f.profile = absl::GetFlag(FLAGS_profile);
  f.profile_out = harness::UserPath(absl::GetFlag(FLAGS_profile_out));
  f.ceilings = harness::UserPath(absl::GetFlag(FLAGS_ceilings));
  f.gemm_rates = harness::UserPath(absl::GetFlag(FLAGS_gemm_rates));
  f.peak_flops = absl::GetFlag(FLAGS_peak_flops);
  f.attention = absl::GetFlag(FLAGS_attention);
  f.attention_impl = absl::GetFlag(FLAGS_attention_impl);
  f.lr = absl::GetFlag(FLAGS_lr);
  f.weight_decay = absl::GetFlag(FLAGS_weight_decay);
  f.beta1 = absl::GetFlag(FLAGS_beta1);
  f.beta2 = absl::GetFlag(FLAGS_beta2);
  f.cuda_graph = absl::GetFlag(FLAGS_cuda_graph);
  f.recompute = absl::GetFlag(FLAGS_recompute);
  return f;
}

}  // namespace macro
