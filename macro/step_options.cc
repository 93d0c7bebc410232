// ResolveStepOptions: defaults by device, validation with errors that name the flag.
#include "macro/step_options.h"

#include <sys/stat.h>

#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "accounting/plausible.h"
#include "harness/atomic_file.h"
#include "sysinfo/cpu_info.h"

namespace macro {
namespace {

absl::Status FlagError(const std::string& flag, absl::string_view msg) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", msg));
}

bool FileReadable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

constexpr char kMakeTokens[] =
    "make one with `bazel run //tools:make_tokens -- --random=1000000 --out=/tmp/train.bin` "
    "(random tokens) or `-- --in=FILE.txt --out=/tmp/train.bin` (bytes of a text)";

// Device first: the other defaults depend on it.
absl::Status ResolveDevice(const RawStepFlags& f, const sysinfo::CudaInventory& cuda, StepOptions* o) {
  if (f.device == "auto") {
    if (cuda.available) {
      o->device = "cuda";
      o->choices.push_back(absl::StrCat("device: cuda (", cuda.devices[0].name, " found)"));
    } else {
      o->device = "cpu";
      o->choices.push_back(absl::StrCat("device: cpu (no CUDA device: ", cuda.reason, ")"));
    }
  } else if (f.device == "cpu") {
    o->device = "cpu";
  } else if (f.device == "cuda") {
    if (!cuda.available) {
      return FlagError("device", absl::StrCat("'cuda' asked for, but there is no CUDA device: ", cuda.reason,
                                              ". Use --device=cpu or --device=auto."));
    }
    o->device = "cuda";
  } else {
    return FlagError("device", absl::StrCat("'", f.device, "' is not one of auto, cpu, cuda"));
  }
  return absl::OkStatus();
}

// Model shape: the preset, then per-field overrides.
absl::Status ResolveModel(const RawStepFlags& f, StepOptions* o) {
  auto preset = model::GptPreset(f.preset);
  if (!preset.ok()) {
    return FlagError("preset", absl::StrCat("'", f.preset, "' is unknown; known presets: ",
                                            absl::StrJoin(model::GptPresetNames(), ", ")));
  }
  o->config = *preset;
  bool custom = false;
  auto override_int = [&](int value, int* field, const std::string& flag) -> absl::Status {
    if (value < 0)
      return FlagError(flag, absl::StrCat(value, " is negative; give a positive size (0: the preset's)"));
    if (value > 0 && value != *field) {
      *field = value;
      custom = true;
    }
    return absl::OkStatus();
  };
  for (auto [value, field, flag] :
       {std::tuple{f.layers, &o->config.layers, "layers"}, std::tuple{f.heads, &o->config.heads, "heads"},
        std::tuple{f.width, &o->config.width, "width"}, std::tuple{f.block, &o->config.block, "block"},
        std::tuple{f.kv_heads, &o->config.kv_heads, "kv_heads"},
        std::tuple{f.mlp_hidden, &o->config.mlp_hidden, "mlp_hidden"}}) {
    if (auto s = override_int(value, field, flag); !s.ok()) return s;
  }
  if (f.vocab < 0)
    return FlagError("vocab", absl::StrCat(f.vocab, " is negative; give a positive size (0: the preset's)"));
  // The largest vocabulary whose padded size and embedding table (vocab x width) stay far from
  // int overflow; real tokenizers use up to a few hundred thousand.
  constexpr int kMaxVocab = 1 << 24;
  if (f.vocab > kMaxVocab) {
    return FlagError(
        "vocab", absl::StrCat(f.vocab, " is out of range; allowed: 1 to ", kMaxVocab, " (0: the preset's)"));
  }
  if (f.vocab > 0 && f.vocab != o->config.vocab) {
    o->config.vocab = f.vocab;
    o->config.padded_vocab = model::PadVocab(f.vocab);
    custom = true;
  }
  if (!f.bias.empty()) {
    if (f.bias != "true" && f.bias != "false") {
      return FlagError("bias", absl::StrCat("'", f.bias, "' is not true or false"));
    }
    bool b = f.bias == "true";
    if (b != o->config.bias) custom = true;
    o->config.bias = b;
  }
  if (custom) o->config.name = absl::StrCat(f.preset, "-custom");
  if (o->config.width > 0 && o->config.heads > 0 && o->config.width % o->config.heads != 0) {
    return FlagError("heads", absl::StrCat(o->config.heads, " does not divide --width=", o->config.width,
                                           "; choose heads with width % heads == 0"));
  }
  if (o->config.kv_heads > 0 && o->config.heads % o->config.kv_heads != 0) {
    return FlagError("kv_heads", absl::StrCat(o->config.kv_heads, " does not divide --heads=", o->config.heads,
                                              "; each K/V head serves a whole group of query heads"));
  }
  if (auto s = model::ValidateConfig(o->config); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("model config: ", s.message()));
  }

  return absl::OkStatus();
}

// Batch and sequence: defaults by device, bounded by the block size.
absl::Status ResolveBatchAndSeq(const RawStepFlags& f, StepOptions* o) {
  const bool gpu = o->device == "cuda";
  if (f.batch < 0) return FlagError("batch", absl::StrCat(f.batch, " is negative; give >= 1 (0: default)"));
  if (f.seq < 0) return FlagError("seq", absl::StrCat(f.seq, " is negative; give >= 1 (0: default)"));
  if (f.batch > 0) {
    o->batch = f.batch;
  } else {
    o->batch = gpu ? 12 : 4;
    o->choices.push_back(
        absl::StrCat("batch: ", o->batch,
                     gpu ? " (bench.py's default)" : " (CPU default: a step in seconds, not minutes)"));
  }
  if (f.seq > 0) {
    o->seq = f.seq;
    if (o->seq > o->config.block) {
      return FlagError("seq", absl::StrCat(o->seq, " is longer than the block size ", o->config.block,
                                           " (--block); use --seq <= --block"));
    }
  } else {
    o->seq = gpu ? o->config.block : std::min(64, o->config.block);
    o->choices.push_back(
        absl::StrCat("seq: ", o->seq, gpu ? " (the block size, as bench.py)" : " (CPU default)"));
  }
  if (auto s = model::ValidateRunShape(o->config, o->batch, o->seq); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("run shape: ", s.message()));
  }

  return absl::OkStatus();
}

// Precision: by device and GPU generation when auto.
absl::Status ResolveDtype(const RawStepFlags& f, const sysinfo::CudaInventory& cuda, StepOptions* o) {
  const bool gpu = o->device == "cuda";
  if (f.dtype == "auto") {
    if (!gpu) {
      o->dtype = accounting::Dtype::kFp32;
      o->choices.push_back("dtype: fp32 (the CPU model computes in fp32)");
    } else if (cuda.devices[0].cc_major >= 8) {
      o->dtype = accounting::Dtype::kBf16;
      o->choices.push_back("dtype: bf16 (mixed precision, fp32 master weights; as bench.py)");
    } else {
      o->dtype = accounting::Dtype::kFp16;
      o->choices.push_back("dtype: fp16 (this GPU has no bf16 tensor cores)");
    }
  } else {
    auto d = accounting::ParseDtype(f.dtype);
    if (!d.ok()) return FlagError("dtype", d.status().message());
    o->dtype = *d;
    if (!gpu && o->dtype != accounting::Dtype::kFp32 && o->dtype != accounting::Dtype::kBf16) {
      return FlagError("dtype", absl::StrCat("'", f.dtype, "' on the CPU: the CPU model runs fp32 or bf16"));
    }
    if (gpu && o->dtype != accounting::Dtype::kFp32 && o->dtype != accounting::Dtype::kBf16) {
      return FlagError("dtype", absl::StrCat("'", f.dtype, "' on CUDA: the CUDA model runs fp32 or bf16"));
    }
  }

  return absl::OkStatus();
}

// Warm-up and timed steps, threads.
absl::Status ResolveSteps(const RawStepFlags& f, StepOptions* o) {
  const bool gpu = o->device == "cuda";
  if (f.warmup_steps < -1)
    return FlagError("warmup_steps", absl::StrCat(f.warmup_steps, " is negative; give >= 0"));
  if (f.steps < -1 || f.steps == 0)
    return FlagError("steps", absl::StrCat(f.steps, " timed steps; give >= 1"));
  o->warmup_steps = f.warmup_steps >= 0 ? f.warmup_steps : (gpu ? 10 : 3);
  o->steps = f.steps >= 1 ? f.steps : (gpu ? 20 : 10);
  if (f.warmup_steps < 0 || f.steps < 0) {
    o->choices.push_back(
        absl::StrCat("steps: ", o->warmup_steps, " warm-up + ", o->steps, " timed",
                     gpu ? " (bench.py's)" : " (CPU default: about half a minute for gpt2)"));
  }
  if (f.threads < 0)
    return FlagError("threads", absl::StrCat(f.threads, " is negative; give >= 1 (0: every core)"));
  // More threads than CPUs only share them (--threads=1000 ran 64 threads and a garbled peak line).
  if (const int cpus = sysinfo::AffinityCpuCount(); cpus > 0 && f.threads > cpus) {
    return FlagError("threads", absl::StrCat(f.threads, " is more than the ", cpus,
                                             " CPUs this process may run on (its affinity mask); give 1 to ",
                                             cpus, " (0: every core)"));
  }
  o->threads = f.threads;

  return absl::OkStatus();
}

// The CPU model's GEMM library.
absl::Status ResolveCpuGemm(const RawStepFlags& f, StepOptions* o) {
  const bool gpu = o->device == "cuda";
  if (f.cpu_gemm.empty()) {
    o->cpu_gemm = model::CpuGemmBackend::kAuto;
    if (!gpu) {
      o->choices.push_back(
          "cpu_gemm: auto (the default: each GEMM shape runs the fastest of oneDNN's matmul "
          "primitive, oneDNN's dnnl_sgemm and OpenBLAS, measured on this machine at start-up or read from "
          "--ceilings; the best library differs by CPU and by shape; --cpu_gemm=onednn, onednn_sgemm or "
          "openblas for one library)");
    }
  } else {
    auto b = model::ParseCpuGemmBackend(f.cpu_gemm, "cpu_gemm");
    if (!b.ok()) return b.status();
    if (gpu) {
      return FlagError("cpu_gemm", absl::StrCat("'", f.cpu_gemm,
                                                "' chooses the CPU model's GEMM "
                                                "library; the CUDA model runs cuBLAS (use --device=cpu)"));
    }
    o->cpu_gemm = *b;
  }
  o->gemm_rates = f.gemm_rates;
  if (!o->gemm_rates.empty() && (gpu || o->dtype != accounting::Dtype::kFp32)) {
    return FlagError("gemm_rates", absl::StrCat("'", f.gemm_rates, "' caches the CPU fp32 step's GEMM rates; ",
                                                gpu ? "this run is on CUDA (use --device=cpu)"
                                                    : "the bf16 step measures its bf16 GEMMs at start-up"));
  }

  return absl::OkStatus();
}

// Data: a token file or random batches; the profiler.
absl::Status ResolveData(const RawStepFlags& f, StepOptions* o) {
  o->real_data = f.real_data;
  o->compare_data = f.compare_data;
  o->data = f.data;
  if (o->real_data || o->compare_data) {
    if (o->data.empty()) {
      return FlagError("data", absl::StrCat("--real_data/--compare_data need a token file; ", kMakeTokens));
    }
    if (!FileReadable(o->data)) {
      return FlagError(
          "data", absl::StrCat("'", o->data, "' does not exist or is not a readable file; ", kMakeTokens));
    }
  } else if (!o->data.empty()) {
    if (!FileReadable(o->data)) {
      return FlagError(
          "data", absl::StrCat("'", o->data, "' does not exist or is not a readable file; ", kMakeTokens));
    }
    o->real_data = true;  // giving a file means using it
    o->choices.push_back("real_data: true (--data was given)");
  }
  o->seed = f.seed;

  o->profile = f.profile;
  o->profile_out = f.profile_out;
  if (o->profile && o->profile_out.empty())
    return FlagError("profile_out", "empty; give a file name for the trace");
  if (o->profile) {  // checked now, not after the run
    if (absl::Status w = harness::CheckWritable(o->profile_out); !w.ok())
      return FlagError("profile_out", w.message());
  }

  return absl::OkStatus();
}

// The peak (a flag or a ceilings file) and the attention FLOPs convention.
absl::Status ResolvePeakAndAttention(const RawStepFlags& f, StepOptions* o) {
  if (f.peak_flops < 0)
    return FlagError("peak_flops", absl::StrCat(f.peak_flops, " is negative; give FLOP/s > 0"));
  if (f.peak_flops != 0) {  // 0: not given; else a physical figure (accounting/plausible.h)
    if (absl::Status s = accounting::CheckPlausibleFlops("--peak_flops", f.peak_flops); !s.ok()) return s;
  }
  if (f.peak_flops > 0 && !f.ceilings.empty()) {
    return FlagError("peak_flops", "give either --peak_flops or --ceilings, not both");
  }
  o->peak_flops = f.peak_flops;
  o->ceilings = f.ceilings;
  if (!o->ceilings.empty() && !FileReadable(o->ceilings)) {
    return FlagError("ceilings", absl::StrCat("'", o->ceilings,
                                              "' does not exist; write one with "
                                              "`bazel run //micro:ceilings -- --ceilings_out=FILE`"));
  }

  if (f.attention == "full") {
    o->convention = accounting::AttentionConvention::kFull;
  } else if (f.attention == "causal") {
    o->convention = accounting::AttentionConvention::kCausalHalved;
  } else {
    return FlagError(
        "attention",
        absl::StrCat("'", f.attention, "' is not full (12LCT, nanoGPT/PaLM) or causal (6LCT, llm.c)"));
  }

  return absl::OkStatus();
}

// The CUDA model's attention: cudnn or kernels only on CUDA, cudnn only in bf16. `auto` is
// decided when the model is made (the cuDNN probe and a start-up check on the device).
absl::Status ResolveAttentionImpl(const RawStepFlags& f, StepOptions* o) {
  auto impl = model::cuda::ParseAttentionImpl(f.attention_impl);
  if (!impl.ok()) return impl.status();
  o->attention_impl = *impl;
  if (*impl == model::cuda::AttentionImpl::kAuto) return absl::OkStatus();
  if (o->device != "cuda") {
    return FlagError("attention_impl", absl::StrCat("'", f.attention_impl,
                                                    "' chooses the CUDA model's attention; the CPU model has "
                                                    "one (use --device=cuda, or leave it auto)"));
  }
  if (*impl == model::cuda::AttentionImpl::kCudnn && o->dtype != accounting::Dtype::kBf16) {
    return FlagError("attention_impl",
                     absl::StrCat("'cudnn' runs bf16 only; dtype is ", accounting::DtypeName(o->dtype),
                                  " (use --dtype=bf16, or --attention_impl=kernels or auto)"));
  }
  return absl::OkStatus();
}

// The optimizer. Written so that NaN fails every test: a NaN or infinite rate would train on
// garbage and time it as if it were a step.
absl::Status ResolveOptimizer(const RawStepFlags& f, StepOptions* o) {
  if (!(f.lr > 0 && f.lr <= 10)) {
    return FlagError("lr", absl::StrCat(f.lr, " is not a learning rate; allowed: 0 < lr <= 10 (finite)"));
  }
  if (!(f.weight_decay >= 0 && f.weight_decay <= 10)) {
    return FlagError("weight_decay",
                     absl::StrCat(f.weight_decay, "; allowed: 0 <= weight_decay <= 10 (finite)"));
  }
  if (!(f.beta1 >= 0 && f.beta1 < 1))
    return FlagError("beta1", absl::StrCat(f.beta1, "; give 0 <= beta1 < 1"));
  if (!(f.beta2 >= 0 && f.beta2 < 1))
    return FlagError("beta2", absl::StrCat(f.beta2, "; give 0 <= beta2 < 1"));
  o->lr = f.lr;
  o->weight_decay = f.weight_decay;
  o->beta1 = f.beta1;
  o->beta2 = f.beta2;
  return absl::OkStatus();
}

// --cuda_graph: the CUDA model only, with two warm-up steps (the first runs uncaptured, the
// second captures and checks the graph) so that every timed step is a replay.
absl::Status ResolveCudaGraph(const RawStepFlags& f, StepOptions* o) {
  o->cuda_graph = f.cuda_graph;
  if (!o->cuda_graph) return absl::OkStatus();
  if (o->device != "cuda") {
    return FlagError("cuda_graph",
                     absl::StrCat("captures the CUDA model's step; this run is on the ", o->device,
                                  " (use --device=cuda, or leave --cuda_graph off)"));
  }
  if (o->warmup_steps < 2) {
    return FlagError("cuda_graph", absl::StrCat("needs --warmup_steps >= 2 (got ", o->warmup_steps,
                                                "): warm-up step 1 runs uncaptured, step 2 captures and "
                                                "checks the graph, so that every timed step is a replay"));
  }
  if (o->profile) {
    return FlagError("cuda_graph",
                     "cannot be combined with --profile: a replayed graph has no op boundaries to time");
  }
  o->choices.push_back(
      "cuda_graph: forward, backward and AdamW captured as one CUDA graph at warm-up step 2 (checked against "
      "an uncaptured step), replayed every step after");
  return absl::OkStatus();
}

// --recompute: a level of the CPU (fp32) or CUDA model; gelu on a GeLU MLP, swiglu on a SwiGLU one (each names
// the MLP's activation it recomputes; the other preset has none of that name).
absl::Status ResolveRecompute(const RawStepFlags& f, StepOptions* o) {
  const std::string& r = f.recompute;
  const bool swiglu = o->config.mlp == model::MlpKind::kSwiglu;
  if (r == "none" || r.empty()) {
    o->recompute = accounting::Recompute::kNone;
    return absl::OkStatus();
  }
  if (r == "all") {
    o->recompute_all = true;
  } else if (r == "gelu" || r == "swiglu") {
    if ((r == "swiglu") != swiglu) {
      return FlagError("recompute",
                       absl::StrCat("'", r, "' recomputes the ", r == "gelu" ? "GeLU" : "SwiGLU",
                                    " MLP's activation; ", o->config.name, "'s MLP is ",
                                    model::MlpName(o->config.mlp), " (use --recompute=", swiglu ? "swiglu" : "gelu",
                                    ", attention, block, all or none)"));
    }
    o->recompute = accounting::Recompute::kActivation;
  } else if (r == "attention") {
    o->recompute = accounting::Recompute::kAttention;
  } else if (r == "block") {
    o->recompute = accounting::Recompute::kBlock;
  } else {
    return FlagError("recompute", absl::StrCat("'", r, "' is not one of none, ", swiglu ? "swiglu" : "gelu",
                                               ", attention, block, all"));
  }
  if (o->device == "cpu" && o->dtype == accounting::Dtype::kBf16) {
    return FlagError("recompute", absl::StrCat("'", r, "' runs the fp32 CPU step only (the bf16 CPU step keeps its "
                                               "GEMM inputs' copies; not built); use --dtype=fp32, or the CUDA "
                                               "model, which recomputes in every dtype"));
  }
  if (o->compare_data && o->recompute_all) {
    return FlagError("recompute", "'all' cannot be combined with --compare_data (one data mode per level)");
  }
  if (o->profile && o->recompute_all) {
    return FlagError("recompute", "'all' cannot be combined with --profile (profile one level at a time)");
  }
  o->choices.push_back(o->recompute_all
                           ? "recompute: all (every level back to back, one line each, against none)"
                           : absl::StrCat("recompute: ", r, " (HFU counts the recomputed FLOPs, MFU does not)"));
  return absl::OkStatus();
}

}  // namespace

std::vector<accounting::Recompute> RecomputeLevels(const model::GptConfig&) {
  return {accounting::Recompute::kNone, accounting::Recompute::kActivation, accounting::Recompute::kAttention,
          accounting::Recompute::kBlock};
}

std::string RecomputeFlagName(accounting::Recompute r, const model::GptConfig& config) {
  if (r == accounting::Recompute::kActivation) return config.mlp == model::MlpKind::kSwiglu ? "swiglu" : "gelu";
  return accounting::RecomputeName(r);
}

std::string StepOptions::CaseName() const {
  return absl::StrCat(config.name, "/", device, "/", accounting::DtypeName(dtype), "/B:", batch, "/T:", seq);
}

absl::StatusOr<StepOptions> ResolveStepOptions(const RawStepFlags& f, const sysinfo::CudaInventory& cuda) {
  StepOptions o;
  absl::Status s = ResolveDevice(f, cuda, &o);  // first: the other defaults depend on it
  if (s.ok()) s = ResolveModel(f, &o);
  if (s.ok()) s = ResolveBatchAndSeq(f, &o);
  if (s.ok()) s = ResolveDtype(f, cuda, &o);
  if (s.ok()) s = ResolveSteps(f, &o);
  if (s.ok()) s = ResolveCpuGemm(f, &o);
  if (s.ok()) s = ResolveData(f, &o);
  if (s.ok()) s = ResolvePeakAndAttention(f, &o);
  if (s.ok()) s = ResolveAttentionImpl(f, &o);
  if (s.ok()) s = ResolveOptimizer(f, &o);
  if (s.ok()) s = ResolveCudaGraph(f, &o);
  if (s.ok()) s = ResolveRecompute(f, &o);
  if (!s.ok()) return s;
  return o;
}

}  // namespace macro
