// ResolveDecodeOptions: gpt_step's resolution for the shared flags, then the decode flags.
#include "macro/gpt_decode_options.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "model/enum_names.h"
#include "model/gpt_config.h"

namespace macro {
namespace {

absl::Status FlagError(const std::string& flag, absl::string_view msg) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", msg));
}

// --prompt and --generate, or their defaults for the device, within the block.
absl::Status ResolveLengths(const RawDecodeFlags& f, bool gpu, DecodeOptions* o) {
  const int block = o->step.config.block;
  if (f.prompt > 0) {
    o->prompt = f.prompt;
  } else {
    o->prompt = std::min(gpu ? 128 : 64, block / 2);
    o->choices.push_back(absl::StrCat("prompt: ", o->prompt, " tokens of prefill (", gpu ? "CUDA" : "CPU",
                                      " default, at most half the block)"));
  }
  if (f.generate > 0) {
    o->generate = f.generate;
  } else {
    o->generate = std::min(gpu ? 128 : 64, block - o->prompt);
    if (o->generate < 1) {
      return FlagError("prompt", absl::StrCat(o->prompt, " tokens fill the block size ", block,
                                              ": no position is left to generate; use --prompt < ", block));
    }
    o->choices.push_back(absl::StrCat("generate: ", o->generate, " new tokens (", gpu ? "CUDA" : "CPU",
                                      " default, within the block)"));
  }
  if (o->prompt + o->generate > block) {
    return FlagError(f.generate > 0 ? "generate" : "prompt",
                     absl::StrCat("--prompt=", o->prompt, " + --generate=", o->generate, " = ",
                                  o->prompt + o->generate, " positions exceed the block size ", block,
                                  " (--block / the preset's); use prompt + generate <= ", block));
  }
  return absl::OkStatus();
}

// --weights before the shared flags' resolution: fp32 stands for --dtype=fp32; bf16 for
// --dtype=bf16, or with --dtype=fp32 given, bf16 weight-only (fp32 arithmetic); int8 computes in
// fp32, so it takes a --dtype of fp32 or auto.
absl::Status PreResolveWeights(const RawDecodeFlags& f, RawStepFlags* raw) {
  if (f.weights == "auto") return absl::OkStatus();
  const std::optional<model::WeightFormat> w = model::ValueOf(model::kWeightFormats, f.weights);
  if (!w) {
    return FlagError("weights", absl::StrCat("'", f.weights, "' is not a weight format; allowed: auto, ",
                                             model::JoinNames(model::kWeightFormats)));
  }
  if (*w == model::WeightFormat::kBf16 && raw->dtype == "fp32") return absl::OkStatus();  // weight-only
  const std::string want = *w == model::WeightFormat::kInt8 ? "fp32" : f.weights;
  if (raw->dtype != "auto" && raw->dtype != want) {
    return FlagError("weights", *w == model::WeightFormat::kInt8
                                    ? absl::StrCat("int8 with --dtype=", raw->dtype,
                                                   ": int8 weights are widened to fp32 and computed in fp32; "
                                                   "give --dtype=fp32 or leave it auto")
                                    : absl::StrCat(f.weights, " with --dtype=", raw->dtype,
                                                   ": --weights=", f.weights, " is --dtype=", f.weights,
                                                   "; give one of them"));
  }
  raw->dtype = want;
  return absl::OkStatus();
}

// --weights after it: auto takes the dtype's storage; int8 and bf16 weight-only (bf16 weights
// under --dtype=fp32) run on the CPU decoder only.
absl::Status ResolveWeights(const RawDecodeFlags& f, DecodeOptions* o) {
  const bool cpu = o->step.device == "cpu";
  if (f.weights == "bf16" && o->step.dtype == accounting::Dtype::kFp32) {
    if (!cpu) {
      return FlagError("weights", "bf16 with --dtype=fp32 (bf16 weights, fp32 arithmetic) runs on the CPU only; "
                                  "on CUDA give --dtype=bf16");
    }
    o->weights = model::WeightFormat::kBf16;
    return absl::OkStatus();
  }
  if (f.weights != "int8") {
    o->weights = o->step.dtype == accounting::Dtype::kBf16 ? model::WeightFormat::kBf16 : model::WeightFormat::kFp32;
    return absl::OkStatus();
  }
  if (!cpu) {
    return FlagError("weights", "int8 on CUDA: the CUDA int8 weight-only GEMV kernel is tested but not wired into "
                                "the CUDA decoder; use --device=cpu");
  }
  o->weights = model::WeightFormat::kInt8;
  return absl::OkStatus();
}

}  // namespace

std::string DecodeOptions::CaseName(int batch) const {
  // Weight-only formats (fp32 arithmetic over narrower weights) get names of their own.
  const bool weight_only = weights != model::WeightFormat::kFp32 && step.dtype == accounting::Dtype::kFp32;
  const std::string storage =
      weight_only ? absl::StrCat(model::WeightFormatName(weights), "w") : accounting::DtypeName(step.dtype);
  return absl::StrCat(step.config.name, "/", step.device, "/", storage, "/B:", batch, "/P:", prompt,
                      "/G:", generate);
}

const std::vector<std::string>& TrainOnlyFlags() {
  static const std::vector<std::string>* flags = new std::vector<std::string>{
      "seq",       "real_data", "data",         "compare_data", "profile", "profile_out",
      "attention", "lr",        "weight_decay", "beta1",        "beta2",   "cuda_graph"};
  return *flags;
}

std::set<std::string> GivenFlags(int argc, char** argv) {
  std::set<std::string> out;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "--") == 0) break;
    if (a[0] != '-') continue;
    a += a[1] == '-' ? 2 : 1;
    std::string name(a, std::strcspn(a, "="));
    if (name.rfind("no", 0) == 0 && name.size() > 2) out.insert(name.substr(2));  // --noflag
    out.insert(name);
  }
  return out;
}

absl::StatusOr<DecodeOptions> ResolveDecodeOptions(const RawStepFlags& step_flags, const RawDecodeFlags& f,
                                                   const sysinfo::CudaInventory& cuda) {
  for (const std::string& flag : TrainOnlyFlags()) {
    if (f.given.count(flag)) {
      return FlagError(flag, flag == "seq" ? "gpt_step's sequence length; gpt_decode runs --prompt tokens of "
                                             "prefill, then --generate new tokens"
                                           : "a train-step flag of gpt_step; gpt_decode does not use it "
                                             "(prompts are random tokens from --seed)");
    }
  }
  // Decode's own checks of --batch first: 0 given explicitly is an error, not "the default".
  if (f.given.count("batch") && step_flags.batch <= 0) {
    return FlagError("batch", absl::StrCat(step_flags.batch, " streams; give --batch >= 1 (default 1)"));
  }
  if (f.batch_sweep < 0 || f.batch_sweep > kMaxBatchSweep) {
    return FlagError("batch_sweep", absl::StrCat(f.batch_sweep, " is out of range; allowed: 0 (no sweep) to ",
                                                 kMaxBatchSweep));
  }
  if (f.prompt < 0)
    return FlagError("prompt", absl::StrCat(f.prompt, " is negative; give >= 1 (0: default)"));
  if (f.generate < 0)
    return FlagError("generate", absl::StrCat(f.generate, " is negative; give >= 1 (0: default)"));
  // The dtype names first, so that an unknown one is named as such whatever the device.
  if (step_flags.dtype != "auto") {
    if (auto d = accounting::ParseDtype(step_flags.dtype); !d.ok())
      return FlagError("dtype", d.status().message());
  }

  RawStepFlags raw = step_flags;
  raw.seq = 1;  // checked below against --prompt and --generate
  if (absl::Status st = PreResolveWeights(f, &raw); !st.ok()) return st;
  if (raw.batch <= 0) raw.batch = 1;
  auto step = ResolveStepOptions(raw, cuda);
  if (!step.ok()) return step.status();
  DecodeOptions o;
  o.step = *step;
  const bool gpu = o.step.device == "cuda";
  for (const std::string& c : o.step.choices) {
    // The train-step defaults of batch, seq and steps do not apply here.
    if (c.rfind("batch:", 0) == 0 || c.rfind("seq:", 0) == 0 || c.rfind("steps:", 0) == 0) continue;
    o.choices.push_back(c);
  }
  if (gpu && o.step.dtype != accounting::Dtype::kFp32 && o.step.dtype != accounting::Dtype::kBf16) {
    return FlagError("dtype",
                     absl::StrCat("'", step_flags.dtype, "' on CUDA: the CUDA decoder runs fp32 or bf16"));
  }
  if (absl::Status st = ResolveWeights(f, &o); !st.ok()) return st;
  if (step_flags.batch <= 0) {
    o.choices.push_back("batch: 1 (one request: the latency case, on the bandwidth bound)");
  }

  if (absl::Status st = ResolveLengths(f, gpu, &o); !st.ok()) return st;

  if (f.batch_sweep > 0) {
    for (int b = 1; b <= f.batch_sweep; b *= 2) o.batches.push_back(b);
    if (f.given.count("batch")) {
      return FlagError("batch_sweep", "give either --batch or --batch_sweep, not both");
    }
  } else {
    o.batches.push_back(step_flags.batch > 0 ? step_flags.batch : 1);
  }
  for (int b : o.batches) {
    if (auto st = model::ValidateRunShape(o.step.config, b, o.positions()); !st.ok()) {
      return FlagError("batch", st.message());
    }
  }

  o.warmup_generations = step_flags.warmup_steps >= 0 ? step_flags.warmup_steps : 1;
  o.timed_generations = step_flags.steps >= 1 ? step_flags.steps : (gpu ? 10 : 5);
  if (step_flags.warmup_steps < 0 || step_flags.steps < 0) {
    o.choices.push_back(absl::StrCat("steps: ", o.warmup_generations, " warm-up + ", o.timed_generations,
                                     " timed generations per case (--warmup_steps, --steps)"));
  }
  return o;
}

}  // namespace macro
