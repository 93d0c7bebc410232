// ResolveServeOptions: the shared flags through ResolveStepOptions, then the serving flags.
#include "macro/gpt_serve_options.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "model/enum_names.h"

namespace macro {
namespace {

absl::Status FlagError(const std::string& flag, absl::string_view msg) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", msg));
}

// The flags of the load: requests, rate, lengths within the block, slots.
absl::Status ResolveLoad(const RawServeFlags& f, ServeOptions* o) {
  if (f.requests < 1 || f.requests > kMaxServeRequests) {
    return FlagError("requests", absl::StrCat(f.requests, " is out of range; allowed: 1 to ", kMaxServeRequests));
  }
  o->requests = f.requests;
  auto rate = ParseRate(f.rate, "rate");
  if (!rate.ok()) return rate.status();
  o->rate = *rate;
  const int block = o->step.config.block;
  auto prompt = ParseLengthRange(f.prompt, "prompt", block - 1);
  if (!prompt.ok()) return prompt.status();
  auto generate = ParseLengthRange(f.generate, "generate", block - prompt->hi);
  if (!generate.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(generate.status().message(), " (the block size ", block,
                                                   " less the longest prompt, ", prompt->hi, ")"));
  }
  o->prompt = *prompt;
  o->generate = *generate;
  if (f.max_batch < 1 || f.max_batch > kMaxServeBatch) {
    return FlagError("max_batch", absl::StrCat(f.max_batch, " is out of range; allowed: 1 to ", kMaxServeBatch));
  }
  o->max_batch = f.max_batch;
  return absl::OkStatus();
}

// The limits, --find_max_rate and its bounds, --compare_serial.
absl::Status ResolveLimits(const RawServeFlags& f, ServeOptions* o) {
  for (const auto& [name, v] : {std::pair{"ttft_limit_ms", f.ttft_limit_ms}, {"tpot_limit_ms", f.tpot_limit_ms}}) {
    if (!std::isfinite(v) || v < 0) {
      return FlagError(name, absl::StrCat(v, " ms: give a limit > 0 (0: none)"));
    }
  }
  o->ttft_limit_ms = f.ttft_limit_ms;
  o->tpot_limit_ms = f.tpot_limit_ms;
  if (!(std::isfinite(f.trial_max_s) && f.trial_max_s > 0)) {
    return FlagError("trial_max_s", absl::StrCat(f.trial_max_s, " s: give a time limit > 0"));
  }
  o->trial_max_s = f.trial_max_s;
  o->compare_serial = f.compare_serial;
  o->find_max_rate = f.find_max_rate;
  if (!f.find_max_rate) return absl::OkStatus();
  if (f.ttft_limit_ms <= 0 && f.tpot_limit_ms <= 0) {
    return FlagError("find_max_rate", "give the limits to meet: --ttft_limit_ms and/or --tpot_limit_ms");
  }
  if (f.given.count("rate")) return FlagError("find_max_rate", "it chooses the rates itself: drop --rate");
  if (f.compare_serial) return FlagError("find_max_rate", "give either --find_max_rate or --compare_serial");
  const size_t colon = f.find_range.find(':');
  double lo = 0, hi = 0;
  if (colon == std::string::npos || !absl::SimpleAtod(f.find_range.substr(0, colon), &lo) ||
      !absl::SimpleAtod(f.find_range.substr(colon + 1), &hi) || !std::isfinite(lo) || !std::isfinite(hi) ||
      !(lo > 0) || !(hi > lo)) {
    return FlagError("find_range", absl::StrCat("'", f.find_range, "': give LOW:HIGH requests/s, 0 < LOW < HIGH"));
  }
  o->find_low = lo;
  o->find_high = hi;
  if (f.find_steps < 1 || f.find_steps > 20) {
    return FlagError("find_steps", absl::StrCat(f.find_steps, " is out of range; allowed: 1 to 20 bisections"));
  }
  o->find_steps = f.find_steps;
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>& ServeRefusedFlags() {
  static const std::vector<std::string>* flags = new std::vector<std::string>{
      "seq",         "batch", "real_data", "data",        "compare_data",   "dtype",
      "warmup_steps", "steps", "profile",   "profile_out", "ceilings",       "gemm_rates",
      "peak_flops",  "attention", "attention_impl", "lr", "weight_decay", "beta1",
      "beta2",       "cuda_graph", "recompute"};
  return *flags;
}

absl::StatusOr<ServeOptions> ResolveServeOptions(const RawStepFlags& step_flags, const RawServeFlags& f,
                                                 const sysinfo::CudaInventory& cuda) {
  for (const std::string& flag : ServeRefusedFlags()) {
    if (f.given.count(flag)) {
      return FlagError(flag, flag == "dtype" ? "gpt_serve's weights are --weights=fp32|bf16|int8"
                             : flag == "batch" ? "gpt_serve's streams are --max_batch (slots)"
                                               : "a flag of gpt_step or gpt_decode; gpt_serve does not use it");
    }
  }
  if (step_flags.device == "cuda") {
    return FlagError("device", "cuda: gpt_serve runs on the CPU only: continuous batching needs each stream at its "
                               "own position, which the CPU decoder's slots give (model/cpu_decoder.h) and the "
                               "CUDA decoder, whose streams run in lockstep, does not yet");
  }
  RawStepFlags raw = step_flags;
  if (raw.device == "auto") raw.device = "cpu";  // also on a machine with a GPU
  raw.seq = 1;
  raw.batch = 1;
  auto step = ResolveStepOptions(raw, cuda);
  if (!step.ok()) return step.status();
  ServeOptions o;
  o.step = *step;
  if (step_flags.device == "auto") o.choices.push_back("device: cpu (gpt_serve runs on the CPU only)");
  for (const std::string& c : o.step.choices) {
    // The train step's defaults and the device choice do not apply here.
    bool skip = false;
    for (const char* p : {"batch:", "seq:", "steps:", "device:", "dtype:", "cpu_gemm:"}) skip = skip || c.rfind(p, 0) == 0;
    if (!skip) o.choices.push_back(c);
  }
  if (o.step.cpu_gemm == model::CpuGemmBackend::kAuto) {
    // gpt_decode measures its few prompt shapes; here every prompt length is a shape of its own.
    o.choices.push_back(
        "cpu_gemm: auto: the prompts' GEMMs come in as many shapes as prompt lengths, none measured here: each "
        "runs oneDNN's matmul primitive (auto's choice for an unmeasured shape); --cpu_gemm=openblas or "
        "onednn_sgemm for another library");
  }
  if (absl::Status st = ResolveLoad(f, &o); !st.ok()) return st;
  if (absl::Status st = ResolveLimits(f, &o); !st.ok()) return st;
  std::optional<model::WeightFormat> w = model::ValueOf(model::kWeightFormats, f.weights);
  if (!w) {
    return FlagError("weights", absl::StrCat("'", f.weights, "' is not a weight format; allowed: ",
                                             model::JoinNames(model::kWeightFormats)));
  }
  o.weights = *w;
  if (!(std::isfinite(f.progress_s) && f.progress_s >= 0)) {
    return FlagError("progress_s", absl::StrCat(f.progress_s, " s: give >= 0 (0: no progress lines)"));
  }
  o.progress_s = f.progress_s;
  o.out = f.out;
  return o;
}

}  // namespace macro
