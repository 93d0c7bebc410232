// //tools:estimate: a calculator for MFU, training time, decode bound, roofline and GPT FLOPs,
// built on //accounting. Usage: estimate <command> [flags]; `estimate <command> --help`.
//
// Every command prints its figures with what they were computed from (the peak and its source,
// the convention) and ends with one machine-readable line:
//     result: key=value key=value ...
// Bad input (missing, negative or out-of-range values, an unknown GPU, a flag the command does not
// take) prints a message naming the flag and exits 2. Numbers accept scientific notation (7e9).
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "accounting/ceilings.h"
#include "accounting/costs.h"
#include "accounting/dtype.h"
#include "accounting/estimates.h"
#include "accounting/gpt_flops.h"
#include "accounting/mfu.h"
#include "accounting/mfu_rating.h"
#include "accounting/peaks.h"
#include "accounting/roofline.h"

// Numeric flags are strings so that "not given" is distinguishable and every parse error can
// name its flag. Empty = not given.
ABSL_FLAG(std::string, params, "", "model parameters N (e.g. 7e9)");
ABSL_FLAG(std::string, tokens_per_second, "", "measured training throughput, all devices together");
ABSL_FLAG(std::string, devices, "", "number of devices (GPUs), an integer >= 1");
ABSL_FLAG(std::string, gpu, "", "device name as CUDA reports it (\"NVIDIA H100 80GB HBM3\") or an alias (H100)");
ABSL_FLAG(std::string, dtype, "bf16", "dtype of the peak: fp32, tf32, bf16, fp16, fp8");
ABSL_FLAG(std::string, peak_flops, "", "peak FLOP/s of one device, instead of --gpu");
ABSL_FLAG(std::string, ceilings, "", "measured-ceilings JSON (from //micro:ceilings), instead of --gpu");
ABSL_FLAG(std::string, tokens, "", "training tokens D");
ABSL_FLAG(std::string, mfu, "", "model FLOPs utilisation, a fraction in (0, 1] (0.45 for 45%)");
ABSL_FLAG(std::string, bytes_per_param, "", "bytes per parameter (2 for bf16, 1 for int8)");
ABSL_FLAG(std::string, bandwidth, "", "memory bandwidth in bytes/s, instead of --gpu");
ABSL_FLAG(std::string, flops, "", "FLOPs of the kernel");
ABSL_FLAG(std::string, bytes, "", "bytes the kernel moves");
ABSL_FLAG(std::string, layers, "", "transformer layers L");
ABSL_FLAG(std::string, heads, "", "attention heads H (must divide --width)");
ABSL_FLAG(std::string, width, "", "embedding width C");
ABSL_FLAG(std::string, vocab, "", "vocabulary size V");
ABSL_FLAG(std::string, block, "", "block size (position table length)");
ABSL_FLAG(std::string, seq, "", "sequence length actually run, <= --block (default: --block)");
ABSL_FLAG(std::string, batch, "", "sequences per step (default 1)");
ABSL_FLAG(bool, bias, true, "Linear and LayerNorm biases (GPT-2: true; nanoGPT bias=False: false)");

namespace {

using accounting::Peak;

constexpr int kUsageError = 2;

struct Command {
  std::string name;
  std::string synopsis;
  std::string what;
  std::vector<std::string> flags;  // flags the command accepts
};

const std::vector<Command>& Commands() {
  static const auto* commands = new std::vector<Command>{
      {"mfu",
       "mfu --params=N --tokens_per_second=X --devices=G (--gpu=NAME [--dtype=bf16] | "
       "--peak_flops=F | --ceilings=FILE [--dtype=bf16])",
       "MFU = 6 * N * tokens/s / (devices * peak per device), and its rating band (seed 003).\n"
       "6N FLOPs per token: the attention term is not included (use `gpt` for it).",
       {"params", "tokens_per_second", "devices", "gpu", "dtype", "peak_flops", "ceilings"}},
      {"train-time",
       "train-time --params=N --tokens=D --devices=G --mfu=M (--gpu=NAME [--dtype=bf16] | "
       "--peak_flops=F | --ceilings=FILE [--dtype=bf16])",
       "Training days = 6 * N * D / (devices * peak per device * MFU), MFU in (0, 1].",
       {"params", "tokens", "devices", "mfu", "gpu", "dtype", "peak_flops", "ceilings"}},
      {"decode-bound",
       "decode-bound --params=N --bytes_per_param=B (--gpu=NAME | --bandwidth=BYTES_PER_S | "
       "--ceilings=FILE)",
       "Upper bound on single-request decode speed: bandwidth / (N * bytes per param) tokens/s\n"
       "(every weight read once per token; KV cache and activations ignored).",
       {"params", "bytes_per_param", "gpu", "bandwidth", "ceilings"}},
      {"roofline",
       "roofline --flops=F --bytes=B (--gpu=NAME [--dtype=bf16] | --peak_flops=F --bandwidth=W | "
       "--ceilings=FILE [--dtype=bf16])",
       "Intensity = F / B, ridge = peak / bandwidth, bound = intensity * bandwidth,\n"
       "attainable = min(peak, bound); memory-bound when intensity < ridge.",
       {"flops", "bytes", "gpu", "dtype", "peak_flops", "bandwidth", "ceilings"}},
      {"gpt",
       "gpt --layers=L --heads=H --width=C --vocab=V --block=T [--seq=T'] [--batch=B] "
       "[--bias=true|false]",
       "GPT-2 layout, tied LM head. Parameter count with and without position embeddings;\n"
       "training FLOPs per token, per sequence and per step = 6N + attention term (N without\n"
       "wpe), in both conventions: full 12*L*C*T (PaLM, nanoGPT) and causal-halved 6*L*C*T\n"
       "(llm.c); forward only = 2N + attention/3. T is --seq (crop) when given.",
       {"layers", "heads", "width", "vocab", "block", "seq", "batch", "bias"}},
  };
  return *commands;
}

const Command* FindCommand(const std::string& name) {
  for (const auto& c : Commands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string FlagHelp(const std::string& flag) {
  static const std::map<std::string, std::string>* help = new std::map<std::string, std::string>{
      {"params", "model parameters N (e.g. 7e9)"},
      {"tokens_per_second", "measured training tokens/s, all devices together"},
      {"devices", "number of devices, an integer >= 1"},
      {"gpu", "CUDA device name (\"NVIDIA H100 80GB HBM3\") or alias (A100, H100, H200, B200, ...)"},
      {"dtype", "dtype of the peak: fp32, tf32, bf16, fp16, fp8 (default bf16)"},
      {"peak_flops", "peak FLOP/s of one device (instead of --gpu)"},
      {"ceilings", "measured-ceilings JSON written by `bazel run //micro:ceilings`"},
      {"tokens", "training tokens D"},
      {"mfu", "MFU as a fraction in (0, 1] (0.45 for 45%)"},
      {"bytes_per_param", "bytes per parameter (bf16: 2, int8: 1)"},
      {"bandwidth", "memory bandwidth, bytes/s"},
      {"flops", "FLOPs the kernel does"},
      {"bytes", "bytes the kernel moves"},
      {"layers", "layers L"},
      {"heads", "heads H (divides --width)"},
      {"width", "width C"},
      {"vocab", "vocabulary V"},
      {"block", "block size T (position table)"},
      {"seq", "tokens per sequence actually run, 1..block (default: block)"},
      {"batch", "sequences per step (default 1)"},
      {"bias", "Linear/LayerNorm biases (default true)"},
  };
  auto it = help->find(flag);
  return it == help->end() ? "" : it->second;
}

void PrintGeneralHelp(FILE* out) {
  std::fprintf(out,
               "usage: estimate <command> [flags]   (bazel run //tools:estimate -- <command> ...)\n"
               "commands:\n");
  for (const auto& c : Commands()) std::fprintf(out, "  %s\n", c.synopsis.c_str());
  std::fprintf(out,
               "`estimate <command> --help` describes one command. Numbers accept scientific\n"
               "notation (7e9). Each command ends with one line `result: key=value ...`.\n");
}

void PrintCommandHelp(const Command& c) {
  std::printf("usage: estimate %s\n\n%s\n\nflags:\n", c.synopsis.c_str(), c.what.c_str());
  for (const auto& f : c.flags) std::printf("  --%-18s %s\n", f.c_str(), FlagHelp(f).c_str());
  std::printf("\nAn unknown --gpu is an error; give --peak_flops or --ceilings instead.\n");
}

// ---- flag values ----

absl::Status FlagError(const std::string& flag, const std::string& value, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", value, " is invalid: ", why));
}

std::string Raw(const absl::Flag<std::string>& f) { return absl::GetFlag(f); }

// A required, positive, finite number.
absl::StatusOr<double> Positive(const std::string& name, const absl::Flag<std::string>& flag) {
  const std::string raw = Raw(flag);
  if (raw.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--", name, " is required (", FlagHelp(name), ")"));
  }
  double v = 0;
  if (!absl::SimpleAtod(raw, &v) || !std::isfinite(v)) {
    return FlagError(name, raw, "not a finite number");
  }
  if (!(v > 0)) return FlagError(name, raw, "must be > 0");
  return v;
}

// A positive integer (scientific notation allowed: 1e3).
absl::StatusOr<int64_t> PositiveInt(const std::string& name, const absl::Flag<std::string>& flag,
                                    int64_t max) {
  const std::string raw = Raw(flag);
  if (raw.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--", name, " is required (", FlagHelp(name), ")"));
  }
  double v = 0;
  if (!absl::SimpleAtod(raw, &v) || !std::isfinite(v) || v < 1 || v != std::floor(v)) {
    return FlagError(name, raw, "must be an integer >= 1");
  }
  if (v > static_cast<double>(max)) return FlagError(name, raw, absl::StrCat("must be <= ", max));
  return static_cast<int64_t>(v);
}

// Compact number for messages: 7e+09 -> "7e+09", 12000 -> "12000".
std::string Num(double v) { return absl::StrFormat("%.6g", v); }
// For result lines: values without spaces.
std::string Token(std::string s) { return absl::StrReplaceAll(s, {{" ", "_"}}); }

// The peak FLOP/s (and bandwidth) from exactly one of --gpu, --peak_flops, --ceilings.
// need_flops: the command divides by a FLOP peak; need_bandwidth: by a bandwidth.
struct ResolvedPeak {
  Peak peak;
  std::string kind;   // "datasheet", "flag", "measured"
  std::string label;  // for the result line: gpu name, "flag" or the ceilings path
};

absl::StatusOr<ResolvedPeak> ResolvePeak(bool need_flops, bool need_bandwidth, bool bandwidth_flag_allowed) {
  const std::string gpu = Raw(FLAGS_gpu), peak_flops = Raw(FLAGS_peak_flops),
                    ceilings = Raw(FLAGS_ceilings);
  const std::string bandwidth = bandwidth_flag_allowed ? Raw(FLAGS_bandwidth) : "";
  const bool by_flags = !peak_flops.empty() || !bandwidth.empty();
  const int sources = (!gpu.empty()) + by_flags + (!ceilings.empty());
  std::string options = need_flops ? "--gpu=NAME [--dtype=bf16], --peak_flops=F" : "--gpu=NAME";
  if (need_flops && need_bandwidth) options += " --bandwidth=W";
  if (!need_flops) options += ", --bandwidth=BYTES_PER_S";
  options += " or --ceilings=FILE";
  if (sources == 0) {
    return absl::InvalidArgumentError(absl::StrCat("a peak is required: give ", options));
  }
  if (sources > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("give only one source of the peak (", options, "), not several"));
  }
  absl::StatusOr<accounting::Dtype> dtype = accounting::ParseDtype(Raw(FLAGS_dtype));
  if (!dtype.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--dtype: ", std::string(dtype.status().message())));
  }
  ResolvedPeak r;
  if (!gpu.empty()) {
    absl::StatusOr<Peak> p = need_flops ? accounting::DatasheetPeak(gpu, *dtype)
                                        : accounting::DatasheetBandwidth(gpu);
    if (!p.ok()) return absl::InvalidArgumentError(absl::StrCat("--gpu: ", std::string(p.status().message())));
    r.peak = *p;
    r.kind = "datasheet";
    absl::StatusOr<const accounting::DatasheetEntry*> e = accounting::FindDatasheetEntry(gpu);
    r.label = Token((*e)->name);
    return r;
  }
  if (!ceilings.empty()) {
    absl::StatusOr<accounting::Ceilings> c = accounting::ReadCeilings(ceilings);
    if (!c.ok()) return absl::InvalidArgumentError(absl::StrCat("--ceilings: ", std::string(c.status().message())));
    if (need_flops) {
      absl::StatusOr<Peak> p = accounting::MeasuredPeak(*c, *dtype, ceilings);
      if (!p.ok()) return absl::InvalidArgumentError(absl::StrCat("--ceilings: ", std::string(p.status().message())));
      r.peak = *p;
    } else {
      r.peak.bytes_per_s = c->bandwidth_bytes_per_s;
      r.peak.source = absl::StrCat("measured: ", ceilings, " (", c->machine, "; ", c->method, "; ", c->date, ")");
    }
    if (need_bandwidth && !(r.peak.bytes_per_s > 0)) {
      return absl::InvalidArgumentError(absl::StrCat("--ceilings: '", ceilings, "' has no bandwidth_bytes_per_s"));
    }
    r.kind = "measured";
    r.label = Token(ceilings);
    return r;
  }
  // Flags.
  if (need_flops) {
    absl::StatusOr<double> f = Positive("peak_flops", FLAGS_peak_flops);
    if (!f.ok()) return f.status();
    r.peak.flops_per_s = *f;
  }
  if (need_bandwidth) {
    absl::StatusOr<double> b = Positive("bandwidth", FLAGS_bandwidth);
    if (!b.ok()) return b.status();
    r.peak.bytes_per_s = *b;
  }
  if (!need_bandwidth && !bandwidth.empty()) {
    return absl::InvalidArgumentError("--bandwidth is not used by this command");
  }
  if (!need_flops && !peak_flops.empty()) {
    return absl::InvalidArgumentError("--peak_flops is not used by this command");
  }
  std::vector<std::string> given;
  if (need_flops) given.push_back("--peak_flops=" + peak_flops);
  if (need_bandwidth) given.push_back("--bandwidth=" + bandwidth);
  r.peak.source = absl::StrCat("flag: ", absl::StrJoin(given, " "));
  r.kind = "flag";
  r.label = "flag";
  return r;
}

// ---- commands ----

absl::Status RunMfu() {
  absl::StatusOr<double> params = Positive("params", FLAGS_params);
  if (!params.ok()) return params.status();
  absl::StatusOr<double> tps = Positive("tokens_per_second", FLAGS_tokens_per_second);
  if (!tps.ok()) return tps.status();
  absl::StatusOr<int64_t> devices = PositiveInt("devices", FLAGS_devices, 1 << 24);
  if (!devices.ok()) return devices.status();
  absl::StatusOr<ResolvedPeak> peak = ResolvePeak(/*need_flops=*/true, /*need_bandwidth=*/false,
                                                  /*bandwidth_flag_allowed=*/false);
  if (!peak.ok()) return peak.status();
  absl::StatusOr<double> mfu = accounting::MfuFromThroughput(
      *params, *tps, static_cast<int>(*devices), peak->peak.flops_per_s);
  if (!mfu.ok()) return mfu.status();
  // An MFU outside (0, 1] is not a result: the inputs claim more model FLOP/s than the peak
  // (or overflow it), which points at a wrong parameter count, throughput or peak.
  if (!(std::isfinite(*mfu) && *mfu > 0 && *mfu <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "MFU = 6 x --params x --tokens_per_second / (devices x peak) = ", Num(*mfu),
        " is outside (0, 1]: 6 x ", Num(*params), " x ", Num(*tps), " FLOP/s is more than the peak ",
        Num(*devices * peak->peak.flops_per_s), " FLOP/s; check the parameter count, the throughput and the peak"));
  }
  const accounting::MfuBand& band = accounting::RateMfu(*mfu);
  const double model_flops_per_s = 6 * *params * *tps;
  std::printf("MFU: %s  [%s]\n", accounting::FormatPercent(*mfu).c_str(), band.advice.c_str());
  std::printf("  model FLOP/s: 6 * N * tokens/s = 6 * %s * %s = %s (6N per token; attention term not included)\n",
              Num(*params).c_str(), Num(*tps).c_str(), Num(model_flops_per_s).c_str());
  std::printf("  peak: %lld device(s) x %s FLOP/s = %s FLOP/s\n", static_cast<long long>(*devices),
              Num(peak->peak.flops_per_s).c_str(), Num(*devices * peak->peak.flops_per_s).c_str());
  std::printf("  peak source: %s\n", peak->peak.source.c_str());
  std::printf("result: mfu=%.6g percent=%.4g band=%s params=%s tokens_per_second=%s devices=%lld "
              "peak_flops=%s dtype=%s peak_kind=%s peak=%s convention=6N\n",
              *mfu, *mfu * 100, band.name.c_str(), Num(*params).c_str(), Num(*tps).c_str(),
              static_cast<long long>(*devices), Num(peak->peak.flops_per_s).c_str(),
              Raw(FLAGS_dtype).c_str(), peak->kind.c_str(), peak->label.c_str());
  return absl::OkStatus();
}

absl::Status RunTrainTime() {
  absl::StatusOr<double> params = Positive("params", FLAGS_params);
  if (!params.ok()) return params.status();
  absl::StatusOr<double> tokens = Positive("tokens", FLAGS_tokens);
  if (!tokens.ok()) return tokens.status();
  absl::StatusOr<int64_t> devices = PositiveInt("devices", FLAGS_devices, 1 << 24);
  if (!devices.ok()) return devices.status();
  if (Raw(FLAGS_mfu).empty()) {
    return absl::InvalidArgumentError("--mfu is required (a fraction in (0, 1], 0.45 for 45%)");
  }
  double mfu = 0;
  if (!absl::SimpleAtod(Raw(FLAGS_mfu), &mfu) || !(mfu > 0 && mfu <= 1)) {
    return FlagError("mfu", Raw(FLAGS_mfu), "must be a fraction in (0, 1] (0.45 for 45%)");
  }
  absl::StatusOr<ResolvedPeak> peak = ResolvePeak(true, false, false);
  if (!peak.ok()) return peak.status();
  absl::StatusOr<double> seconds = accounting::TrainingSeconds(
      *params, *tokens, static_cast<int>(*devices), peak->peak.flops_per_s, mfu);
  if (!seconds.ok()) return seconds.status();
  const double flops = 6 * *params * *tokens;
  const double days = *seconds / accounting::kSecondsPerDay;
  std::printf("training time: %.1f days (%.3g s, %.1f hours)\n", days, *seconds, *seconds / 3600);
  std::printf("  work: 6 * N * D = 6 * %s * %s = %s FLOPs (attention term not included)\n",
              Num(*params).c_str(), Num(*tokens).c_str(), Num(flops).c_str());
  std::printf("  rate: %lld device(s) x %s FLOP/s x MFU %s = %s FLOP/s\n",
              static_cast<long long>(*devices), Num(peak->peak.flops_per_s).c_str(),
              accounting::FormatPercent(mfu, 1).c_str(), Num(*devices * peak->peak.flops_per_s * mfu).c_str());
  std::printf("  peak source: %s\n", peak->peak.source.c_str());
  std::printf("result: days=%.6g seconds=%.6g flops=%s params=%s tokens=%s devices=%lld mfu=%s "
              "peak_flops=%s dtype=%s peak_kind=%s peak=%s\n",
              days, *seconds, Num(flops).c_str(), Num(*params).c_str(), Num(*tokens).c_str(),
              static_cast<long long>(*devices), Num(mfu).c_str(), Num(peak->peak.flops_per_s).c_str(),
              Raw(FLAGS_dtype).c_str(), peak->kind.c_str(), peak->label.c_str());
  return absl::OkStatus();
}

absl::Status RunDecodeBound() {
  absl::StatusOr<double> params = Positive("params", FLAGS_params);
  if (!params.ok()) return params.status();
  absl::StatusOr<double> bpp = Positive("bytes_per_param", FLAGS_bytes_per_param);
  if (!bpp.ok()) return bpp.status();
  absl::StatusOr<ResolvedPeak> peak = ResolvePeak(/*need_flops=*/false, /*need_bandwidth=*/true,
                                                  /*bandwidth_flag_allowed=*/true);
  if (!peak.ok()) return peak.status();
  absl::StatusOr<double> bound = accounting::DecodeTokensPerSecondBound(*params, *bpp, peak->peak.bytes_per_s);
  if (!bound.ok()) return bound.status();
  const double model_bytes = *params * *bpp;
  std::printf("decode upper bound: %.1f tokens/s per request (batch 1)\n", *bound);
  std::printf("  bandwidth / model bytes = %s B/s / (%s params x %s B) = %s / %s\n",
              Num(peak->peak.bytes_per_s).c_str(), Num(*params).c_str(), Num(*bpp).c_str(),
              Num(peak->peak.bytes_per_s).c_str(), Num(model_bytes).c_str());
  std::printf("  every weight is read once per token; KV cache and activations ignored\n");
  std::printf("  bandwidth source: %s\n", peak->peak.source.c_str());
  std::printf("result: tokens_per_second=%.6g params=%s bytes_per_param=%s model_bytes=%s "
              "bandwidth=%s peak_kind=%s peak=%s\n",
              *bound, Num(*params).c_str(), Num(*bpp).c_str(), Num(model_bytes).c_str(),
              Num(peak->peak.bytes_per_s).c_str(), peak->kind.c_str(), peak->label.c_str());
  return absl::OkStatus();
}

absl::Status RunRoofline() {
  absl::StatusOr<double> flops = Positive("flops", FLAGS_flops);
  if (!flops.ok()) return flops.status();
  absl::StatusOr<double> bytes = Positive("bytes", FLAGS_bytes);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<ResolvedPeak> peak = ResolvePeak(true, true, true);
  if (!peak.ok()) return peak.status();
  const accounting::RooflineResult r =
      accounting::Roofline(peak->peak.flops_per_s, peak->peak.bytes_per_s, *flops, *bytes);
  std::printf("intensity:  %.4g FLOP/byte (%s FLOPs / %s bytes)\n", r.intensity, Num(*flops).c_str(),
              Num(*bytes).c_str());
  std::printf("ridge:      %.4g FLOP/byte (peak %s FLOP/s / bandwidth %s B/s)\n", r.ridge,
              Num(peak->peak.flops_per_s).c_str(), Num(peak->peak.bytes_per_s).c_str());
  std::printf("bound:      %.4g FLOP/s (intensity x bandwidth)\n", r.bound_flops_per_s);
  std::printf("attainable: %.4g FLOP/s = min(peak, bound): %s-bound\n", r.attainable_flops_per_s,
              r.memory_bound ? "memory" : "compute");
  std::printf("  peak source: %s\n", peak->peak.source.c_str());
  std::printf("result: intensity=%.6g ridge=%.6g bound_flops_per_s=%.6g attainable_flops_per_s=%.6g "
              "bound=%s peak_flops=%s bandwidth=%s dtype=%s peak_kind=%s peak=%s\n",
              r.intensity, r.ridge, r.bound_flops_per_s, r.attainable_flops_per_s,
              r.memory_bound ? "memory" : "compute", Num(peak->peak.flops_per_s).c_str(),
              Num(peak->peak.bytes_per_s).c_str(), Raw(FLAGS_dtype).c_str(), peak->kind.c_str(),
              peak->label.c_str());
  return absl::OkStatus();
}

absl::Status RunGpt() {
  accounting::GptShape s;
  struct IntFlag { const char* name; const absl::Flag<std::string>* flag; int64_t* out; };
  for (IntFlag f : {IntFlag{"layers", &FLAGS_layers, &s.layers}, IntFlag{"heads", &FLAGS_heads, &s.heads},
                    IntFlag{"width", &FLAGS_width, &s.width}, IntFlag{"vocab", &FLAGS_vocab, &s.vocab},
                    IntFlag{"block", &FLAGS_block, &s.block}}) {
    absl::StatusOr<int64_t> v = PositiveInt(f.name, *f.flag, int64_t{1} << 24);
    if (!v.ok()) return v.status();
    *f.out = *v;
  }
  s.bias = absl::GetFlag(FLAGS_bias);
  if (s.width % s.heads != 0) {
    return FlagError("heads", Raw(FLAGS_heads), absl::StrCat("does not divide --width=", s.width));
  }
  int64_t seq = s.block, batch = 1;
  if (!Raw(FLAGS_seq).empty()) {
    absl::StatusOr<int64_t> v = PositiveInt("seq", FLAGS_seq, int64_t{1} << 24);
    if (!v.ok()) return v.status();
    if (*v > s.block) return FlagError("seq", Raw(FLAGS_seq), absl::StrCat("must be <= --block=", s.block));
    seq = *v;
  }
  if (!Raw(FLAGS_batch).empty()) {
    absl::StatusOr<int64_t> v = PositiveInt("batch", FLAGS_batch, int64_t{1} << 24);
    if (!v.ok()) return v.status();
    batch = *v;
  }
  const int64_t n_all = accounting::GptParamCount(s, true);
  const int64_t n = accounting::GptParamCount(s, false);
  std::printf("GPT: L=%lld H=%lld C=%lld V=%lld block=%lld bias=%s; T=%lld%s, batch=%lld\n",
              (long long)s.layers, (long long)s.heads, (long long)s.width, (long long)s.vocab,
              (long long)s.block, s.bias ? "true" : "false", (long long)seq,
              seq < s.block ? " (cropped)" : "", (long long)batch);
  std::printf("parameters: %lld with position embeddings, %lld without (N, used for FLOPs)\n",
              (long long)n_all, (long long)n);
  std::string result = absl::StrCat("result: params=", n_all, " params_without_wpe=", n, " seq=", seq,
                                    " batch=", batch, " tokens_per_step=", batch * seq);
  for (auto conv : {accounting::AttentionConvention::kFull, accounting::AttentionConvention::kCausalHalved}) {
    absl::StatusOr<accounting::StepFlops> f = accounting::GptStepFlops(s, seq, batch, 1, conv);
    if (!f.ok()) return f.status();
    const double fwd = accounting::ForwardFlopsPerToken(s, seq, conv);
    const std::string& name = accounting::ConventionName(conv);
    std::printf("attention %s (6N + %s):\n", name.c_str(), accounting::ConventionFormula(conv).c_str());
    std::printf("  train FLOPs per token:    %.6g  (6N = %.6g, attention = %.6g)\n", f->model_flops_per_token,
                6.0 * n, accounting::AttentionTrainFlopsPerToken(s, seq, conv));
    std::printf("  train FLOPs per sequence: %.6g\n", f->model_flops_per_sequence);
    std::printf("  train FLOPs per step:     %.6g  (%lld tokens)\n", f->model_flops_per_step,
                (long long)f->tokens);
    std::printf("  forward FLOPs per token:  %.6g  (2N + attention/3)\n", fwd);
    const std::string key = absl::StrReplaceAll(name, {{"-", "_"}});
    absl::StrAppend(&result, " train_flops_per_token_", key, "=", Num(f->model_flops_per_token),
                    " train_flops_per_step_", key, "=", Num(f->model_flops_per_step),
                    " forward_flops_per_token_", key, "=", Num(fwd));
  }
  std::printf("%s\n", result.c_str());
  return absl::OkStatus();
}

// Names of flags given on the command line (--name or --name=value or --noname for bools).
std::set<std::string> GivenFlagNames(int argc, char** argv) {
  std::set<std::string> names;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") break;
    if (a.size() < 2 || a[0] != '-') continue;
    size_t start = a.find_first_not_of('-');
    if (start == std::string::npos) continue;
    std::string name = a.substr(start, a.find('=') == std::string::npos ? std::string::npos : a.find('=') - start);
    if (!name.empty() && (std::isdigit(static_cast<unsigned char>(name[0])) || name[0] == '.')) continue;  // a value
    if (name == "nobias") name = "bias";  // absl's negated bool form
    names.insert(name);
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("estimate <command> [flags]; commands: mfu, train-time, decode-bound, roofline, gpt");
  if (argc < 2) {
    PrintGeneralHelp(stderr);
    return kUsageError;
  }
  const std::string command_name = argv[1];
  if (command_name == "--help" || command_name == "-h" || command_name == "help" ||
      command_name == "--helpfull") {
    PrintGeneralHelp(stdout);
    return 0;
  }
  const Command* command = FindCommand(command_name);
  if (command == nullptr) {
    std::fprintf(stderr, "estimate: unknown command '%s'\n", command_name.c_str());
    PrintGeneralHelp(stderr);
    return kUsageError;
  }
  const std::set<std::string> given = GivenFlagNames(argc, argv);
  if (given.count("help") || given.count("h") || given.count("helpfull")) {
    PrintCommandHelp(*command);
    return 0;
  }
  for (const auto& name : given) {
    bool ok = false;
    for (const auto& f : command->flags) ok |= (f == name);
    if (!ok) {
      std::fprintf(stderr, "estimate %s: flag --%s is not used by this command (its flags: --%s)\n",
                   command->name.c_str(), name.c_str(), absl::StrJoin(command->flags, ", --").c_str());
      return kUsageError;
    }
  }
  // absl parses the flags after the command (argv[1] is dropped). Unknown flags exit with its message.
  std::vector<char*> args = {argv[0]};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  std::vector<char*> positional = absl::ParseCommandLine(static_cast<int>(args.size()), args.data());
  if (positional.size() > 1) {
    std::fprintf(stderr, "estimate %s: unexpected argument '%s' (flags are --name=value)\n",
                 command->name.c_str(), positional[1]);
    return kUsageError;
  }
  absl::Status status;
  if (command->name == "mfu") status = RunMfu();
  if (command->name == "train-time") status = RunTrainTime();
  if (command->name == "decode-bound") status = RunDecodeBound();
  if (command->name == "roofline") status = RunRoofline();
  if (command->name == "gpt") status = RunGpt();
  if (!status.ok()) {
    std::fprintf(stderr, "estimate %s: %s\n", command->name.c_str(), std::string(status.message()).c_str());
    return kUsageError;
  }
  return 0;
}
