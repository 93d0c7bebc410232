// //tools:estimate's flag table, parsing and commands; see estimate_lib.h.
#include "tools/estimate/estimate_lib.h"

#include <cctype>
#include <cmath>
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
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
#include "accounting/plausible.h"
#include "accounting/roofline.h"
#include "model/cuda/cuda_memory.h"
#include "model/cuda/gemm.h"
#include "model/gpt_config.h"
#include "model/gpt_memory.h"

namespace estimate {
namespace {

using accounting::Peak;

constexpr char kMfu[] = "mfu", kTrainTime[] = "train-time", kDecodeBound[] = "decode-bound",
               kRoofline[] = "roofline", kGpt[] = "gpt";

// One row of FlagTable(); most flags have no default.
FlagSpec Flag(std::string name, FlagType type, std::string help, std::vector<std::string> commands,
              std::string default_value = "") {
  return {std::move(name), type, std::move(default_value), std::move(help), std::move(commands)};
}

}  // namespace

// ---- the tables ----

const std::vector<FlagSpec>& FlagTable() {
  using T = FlagType;
  static const auto* table = new std::vector<FlagSpec>{
      Flag("params", T::kNumber, "model parameters N (e.g. 7e9)", {kMfu, kTrainTime, kDecodeBound}),
      Flag("tokens_per_second", T::kNumber, "measured training tokens/s, all devices together", {kMfu}),
      Flag("devices", T::kInteger, "number of devices (GPUs), an integer >= 1", {kMfu, kTrainTime}),
      Flag("tokens", T::kNumber, "training tokens D", {kTrainTime}),
      Flag("mfu", T::kNumber, "MFU as a fraction in (0, 1] (0.45 for 45%)", {kTrainTime}),
      Flag("bytes_per_param", T::kNumber, "bytes per parameter (bf16: 2, int8: 1)", {kDecodeBound}),
      Flag("flops", T::kNumber, "FLOPs the kernel does", {kRoofline}),
      Flag("bytes", T::kNumber, "bytes the kernel moves", {kRoofline}),
      Flag("gpu", T::kText,
           "CUDA device name (\"NVIDIA H100 80GB HBM3\") or alias (A100, H100, H200, B200, ...); gpt: the "
           "memory ledger is the CUDA model's (bf16) against this GPU's memory",
           {kMfu, kTrainTime, kDecodeBound, kRoofline, kGpt}),
      Flag("dtype", T::kText, "dtype of the peak: fp32, tf32, bf16, fp16, fp8", {kMfu, kTrainTime, kRoofline},
           "bf16"),
      Flag("peak_flops", T::kNumber, "peak FLOP/s of one device (instead of --gpu)",
           {kMfu, kTrainTime, kRoofline}),
      Flag("bandwidth", T::kNumber, "memory bandwidth, bytes/s (instead of --gpu)",
           {kDecodeBound, kRoofline}),
      Flag("ceilings", T::kText,
           "measured-ceilings JSON written by `bazel run //micro:ceilings` (instead of --gpu)",
           {kMfu, kTrainTime, kDecodeBound, kRoofline}),
      Flag("traffic", T::kText,
           "the kind of memory traffic, whose roof of the --ceilings file bounds it: read, write_nt, copy, "
           "triad, in_place (decode-bound's default: read, decode's traffic; roofline's: copy)",
           {kDecodeBound, kRoofline}),
      Flag("preset", T::kText,
           "a model of model/gpt_config.h (gpt2, gpt2-medium, gpt2-large, gpt2-xl, test-tiny, test-mini, "
           "llama3-8b, llama3.2-1b, llama-124m, llama-tiny): its shape, padded vocab and switches; the flags "
           "below override them",
           {kGpt}),
      Flag("layers", T::kInteger, "transformer layers L", {kGpt}),
      Flag("heads", T::kInteger, "attention (query) heads H (must divide --width)", {kGpt}),
      Flag("width", T::kInteger, "embedding width C", {kGpt}),
      Flag("vocab", T::kInteger, "vocabulary size V", {kGpt}),
      Flag("block", T::kInteger, "block size T (position table length)", {kGpt}),
      Flag("seq", T::kInteger, "tokens per sequence actually run, 1..block (default: --block)", {kGpt}),
      Flag("batch", T::kInteger, "sequences per step (default 1)", {kGpt}),
      Flag("bias", T::kBool,
           "Linear and LayerNorm biases (GPT-2: true; nanoGPT bias=False, Llama: false; default: the "
           "preset's, else true)",
           {kGpt}),
      Flag("kv_heads", T::kInteger,
           "K/V heads (grouped-query attention), dividing --heads (default: --heads)", {kGpt}),
      Flag("mlp_hidden", T::kInteger, "the MLP's hidden width F (default 4C)", {kGpt}),
      Flag("swiglu", T::kBool, "SwiGLU MLP (gate and up C x F, down F x C); false: GeLU (up and down)",
           {kGpt}),
      Flag("rmsnorm", T::kBool, "RMSNorm (a weight, no bias); false: LayerNorm", {kGpt}),
      Flag("rope", T::kBool, "rotary positions (no position table); false: a learned table (block x C)",
           {kGpt}),
      Flag("untied", T::kBool, "the LM head its own V x C matrix; false: tied to the token embedding",
           {kGpt}),
      Flag("recompute", T::kText,
           "print the memory ledger at this activation-recompute level: none, gelu (GeLU MLP) or swiglu "
           "(SwiGLU MLP), attention, block, or all (a line each); the CPU model's fp32 buffers, or with --gpu "
           "the CUDA model's bf16 plan against the GPU's memory",
           {kGpt}),
  };
  return *table;
}

const FlagSpec* FindFlag(const std::string& name) {
  for (const FlagSpec& f : FlagTable()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const std::vector<CommandSpec>& Commands() {
  static const auto* commands = new std::vector<CommandSpec>{
      {kMfu,
       "mfu --params=N --tokens_per_second=X --devices=G (--gpu=NAME [--dtype=bf16] | "
       "--peak_flops=F | --ceilings=FILE [--dtype=bf16])",
       "MFU = 6 * N * tokens/s / (devices * peak per device), and its rating band.\n"
       "6N FLOPs per token: the attention term is not included (use `gpt` for it)."},
      {kTrainTime,
       "train-time --params=N --tokens=D --devices=G --mfu=M (--gpu=NAME [--dtype=bf16] | "
       "--peak_flops=F | --ceilings=FILE [--dtype=bf16])",
       "Training days = 6 * N * D / (devices * peak per device * MFU), MFU in (0, 1]."},
      {kDecodeBound,
       "decode-bound --params=N --bytes_per_param=B (--gpu=NAME | --bandwidth=BYTES_PER_S | "
       "--ceilings=FILE [--traffic=read])",
       "Upper bound on single-request decode speed: bandwidth / (N * bytes per param) tokens/s\n"
       "(every weight read once per token; KV cache and activations ignored). With --ceilings the\n"
       "bandwidth is the file's read roof (a file written before the memory roofs: its STREAM copy)."},
      {kRoofline,
       "roofline --flops=F --bytes=B (--gpu=NAME [--dtype=bf16] | --peak_flops=F --bandwidth=W | "
       "--ceilings=FILE [--dtype=bf16] [--traffic=copy])",
       "Intensity = F / B, ridge = peak / bandwidth, bound = intensity * bandwidth,\n"
       "attainable = min(peak, bound); memory-bound when intensity < ridge. With --ceilings the\n"
       "bandwidth is the file's roof of the kernel's kind of traffic (--traffic, default copy)."},
      {kGpt,
       "gpt (--preset=NAME | --layers=L --heads=H --width=C --vocab=V --block=T) [--seq=T'] [--batch=B] "
       "[--bias] [--kv_heads=K] [--mlp_hidden=F] [--swiglu] [--rmsnorm] [--rope] [--untied] "
       "[--recompute=LEVEL|all] [--gpu=NAME]",
       "A decoder-only transformer: a preset of model/gpt_config.h (GPT-2, Llama 3) or GPT-2's layout\n"
       "from the shape flags, with Megatron-LM-style switches over either. Parameter count in all and\n"
       "N (torchtitan's rule: no position table, no untied input embedding); training FLOPs per\n"
       "token, per sequence and per step = 6N + attention term, in both conventions: full\n"
       "12*L*H*hd*T (torchtitan, PaLM, nanoGPT) and causal-halved 6*L*H*hd*T (Megatron-LM, llm.c);\n"
       "forward only = 2N + attention/3; training memory for fp32 master weights, gradients and\n"
       "AdamW (4 + 4 + 8 bytes per parameter). T is --seq (crop) when given.\n"
       "--recompute=LEVEL|all (or --gpu alone: none) adds the memory ledger per level: parameters,\n"
       "gradients, AdamW, bf16 copies, the activations the level keeps, scratch and workspace, and\n"
       "with --gpu whether it fits the GPU's memory."},
  };
  return *commands;
}

const CommandSpec* FindCommand(const std::string& name) {
  for (const CommandSpec& c : Commands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::vector<std::string> CommandFlags(const std::string& command) {
  std::vector<std::string> names;
  for (const FlagSpec& f : FlagTable()) {
    for (const std::string& c : f.commands) {
      if (c == command) names.push_back(f.name);
    }
  }
  return names;
}

// ---- help ----

namespace {

const char* TypeHint(FlagType t) {
  switch (t) {
    case FlagType::kNumber: return "number";
    case FlagType::kInteger: return "integer";
    case FlagType::kBool: return "true|false";
    case FlagType::kText: return "text";
  }
  return "";
}

bool TakesFlag(const std::string& command, const std::string& flag) {
  const FlagSpec* f = FindFlag(flag);
  if (f == nullptr) return false;
  for (const std::string& c : f->commands) {
    if (c == command) return true;
  }
  return false;
}

}  // namespace

std::string GeneralHelp() {
  std::string s =
      "usage: estimate <command> [flags]   (bazel run //tools:estimate -- <command> ...)\ncommands:\n";
  for (const CommandSpec& c : Commands()) absl::StrAppend(&s, "  ", c.synopsis, "\n");
  absl::StrAppend(&s,
                  "`estimate <command> --help` describes one command and its flags. Numbers accept\n"
                  "scientific notation (7e9). Each command ends with one line `result: key=value ...`.\n"
                  "Exit status: 0 success; 2 bad input (the message names the flag).\n");
  return s;
}

std::string CommandHelp(const std::string& command) {
  const CommandSpec* c = FindCommand(command);
  if (c == nullptr) return GeneralHelp();
  std::string s = absl::StrCat("usage: estimate ", c->synopsis, "\n\n", c->what, "\n\nflags:\n");
  for (const FlagSpec& f : FlagTable()) {
    if (!TakesFlag(command, f.name)) continue;
    absl::StrAppendFormat(&s, "  --%-18s %s (%s%s)\n", f.name, f.help, TypeHint(f.type),
                          f.default_value.empty() ? "" : absl::StrCat(", default ", f.default_value));
  }
  absl::StrAppend(&s, "\nAn unknown --gpu is an error; give --peak_flops or --ceilings instead.\n");
  return s;
}

// ---- parsing ----

namespace {

absl::Status UnknownFlag(const std::string& command, const std::string& name) {
  const FlagSpec* negated = absl::StartsWith(name, "no") ? FindFlag(name.substr(2)) : nullptr;
  const bool known = FindFlag(name) != nullptr || (negated != nullptr && negated->type == FlagType::kBool);
  const std::string why = known ? "is not used by this command" : "is not a flag of estimate";
  return absl::InvalidArgumentError(absl::StrCat("flag --", name, " ", why, " (its flags: --",
                                                 absl::StrJoin(CommandFlags(command), ", --"), ")"));
}

absl::StatusOr<std::string> ParseBool(const std::string& name, const std::string& value) {
  if (value == "true" || value == "1" || value == "yes") return std::string("true");
  if (value == "false" || value == "0" || value == "no") return std::string("false");
  return absl::InvalidArgumentError(absl::StrCat("--", name, "=", value, " is invalid: true or false"));
}

}  // namespace

absl::StatusOr<FlagValues> ParseFlags(const std::string& command, const std::vector<std::string>& args) {
  FlagValues values;
  for (const FlagSpec& f : FlagTable()) {
    if (TakesFlag(command, f.name) && !f.default_value.empty()) values[f.name] = f.default_value;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      if (i + 1 < args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("unexpected argument '", args[i + 1], "' (flags are --name=value)"));
      }
      break;
    }
    const size_t start = a.find_first_not_of('-');
    if (start == 0 || start > 2 || start == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", a, "' (flags are --name=value)"));
    }
    const size_t eq = a.find('=');
    std::string name = a.substr(start, eq == std::string::npos ? std::string::npos : eq - start);
    const bool has_value = eq != std::string::npos;
    std::string value = has_value ? a.substr(eq + 1) : "";
    if (!TakesFlag(command, name) && absl::StartsWith(name, "no") && !has_value) {
      const FlagSpec* f = FindFlag(name.substr(2));
      if (f != nullptr && f->type == FlagType::kBool && TakesFlag(command, f->name)) {
        values[f->name] = "false";  // --nobias
        continue;
      }
    }
    if (!TakesFlag(command, name)) return UnknownFlag(command, name);
    const FlagSpec& spec = *FindFlag(name);
    if (spec.type == FlagType::kBool) {
      absl::StatusOr<std::string> b = ParseBool(name, has_value ? value : "true");
      if (!b.ok()) return b.status();
      values[name] = *b;
      continue;
    }
    if (!has_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value (--", name, "=VALUE)"));
      }
      value = args[++i];
    }
    values[name] = value;
  }
  return values;
}

// ---- flag values ----

namespace {

std::string Get(const FlagValues& v, const std::string& name) {
  auto it = v.find(name);
  return it == v.end() ? "" : it->second;
}

absl::Status FlagError(const std::string& flag, const std::string& value, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", value, " is invalid: ", why));
}

absl::Status Required(const std::string& name) {
  const FlagSpec* f = FindFlag(name);
  return absl::InvalidArgumentError(absl::StrCat("--", name, " is required (", f ? f->help : "", ")"));
}

// A required, positive, finite number.
absl::StatusOr<double> Positive(const FlagValues& v, const std::string& name) {
  const std::string raw = Get(v, name);
  if (raw.empty()) return Required(name);
  double x = 0;
  if (!absl::SimpleAtod(raw, &x) || !std::isfinite(x)) return FlagError(name, raw, "not a finite number");
  if (!(x > 0)) return FlagError(name, raw, "must be > 0");
  return x;
}

// Reads each named flag with Positive() into its double, or returns the first error.
absl::Status ReadPositive(const FlagValues& v, std::initializer_list<std::pair<const char*, double*>> flags) {
  for (auto [name, out] : flags) {
    absl::StatusOr<double> x = Positive(v, name);
    if (!x.ok()) return x.status();
    *out = *x;
  }
  return absl::OkStatus();
}

// A required positive integer <= max (scientific notation allowed: 1e3).
absl::StatusOr<int64_t> PositiveInt(const FlagValues& v, const std::string& name, int64_t max) {
  const std::string raw = Get(v, name);
  if (raw.empty()) return Required(name);
  double x = 0;
  if (!absl::SimpleAtod(raw, &x) || !std::isfinite(x) || x < 1 || x != std::floor(x)) {
    return FlagError(name, raw, "must be an integer >= 1");
  }
  if (x > static_cast<double>(max)) return FlagError(name, raw, absl::StrCat("must be <= ", max));
  return static_cast<int64_t>(x);
}

// Compact number for messages: 7e+09 -> "7e+09", 12000 -> "12000".
std::string Num(double v) { return absl::StrFormat("%.6g", v); }
// For result lines: values without spaces.
std::string Token(const std::string& s) { return absl::StrReplaceAll(s, {{" ", "_"}}); }

// ---- the peak ----

// The peak FLOP/s (and bandwidth) from exactly one of --gpu, --peak_flops (--bandwidth),
// --ceilings. need_flops: the command divides by a FLOP peak; need_bandwidth: by a bandwidth.
struct PeakNeed {
  bool flops = false, bandwidth = false;
  bool bandwidth_flag = false;  // --bandwidth is one of the command's flags
  // The kind of traffic whose roof of a --ceilings file is the bandwidth (--traffic, else this
  // command's default); "" for commands without a bandwidth.
  std::string traffic = "";
  bool traffic_given = false;  // --traffic was given
};

struct ResolvedPeak {
  Peak peak;
  std::string kind;   // "datasheet", "flag", "measured"
  std::string label;  // for the result line: gpu name, "flag" or the ceilings path
  std::string traffic = "";  // the memory roof of a --ceilings file the bandwidth is; "" otherwise
};

// The bandwidth of a --ceilings file for `need.traffic`: its memory roof of that kind; a file
// written before the memory roofs has only its STREAM copy (bandwidth_bytes_per_s), taken for copy
// and, with a note, for a default kind, refused for a kind the user asked for.
absl::Status TrafficBandwidth(const std::string& path, const accounting::Ceilings& c, PeakNeed need,
                              ResolvedPeak* r) {
  auto it = c.memory.dram_bytes_per_s.find(need.traffic);
  if (it != c.memory.dram_bytes_per_s.end() && it->second > 0) {
    r->peak.bytes_per_s = it->second;
    r->traffic = need.traffic;
    r->peak.source = absl::StrCat("the ", need.traffic, " memory roof of ", r->peak.source);
    return absl::OkStatus();
  }
  if (need.traffic == "copy") {
    r->traffic = "copy";
    return absl::OkStatus();
  }
  if (need.traffic_given) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--traffic=", need.traffic, ": '", path, "' has no ", need.traffic,
        " memory roof (memory_roofs_bytes_per_s; written before the memory roofs?): measure it again with "
        "`bazel run //micro:ceilings -- --ceilings_out=FILE`, or give --traffic=copy"));
  }
  r->traffic = "copy";
  r->peak.source = absl::StrCat("STREAM copy (the file has no ", need.traffic,
                                " memory roof: written before the memory roofs) of ", r->peak.source);
  return absl::OkStatus();
}

std::string PeakOptions(PeakNeed need) {
  std::string options = need.flops ? "--gpu=NAME [--dtype=bf16], --peak_flops=F" : "--gpu=NAME";
  if (need.flops && need.bandwidth) options += " --bandwidth=W";
  if (!need.flops) options += ", --bandwidth=BYTES_PER_S";
  return options + " or --ceilings=FILE";
}

absl::Status Prefixed(const std::string& prefix, const absl::Status& s) {
  return absl::InvalidArgumentError(absl::StrCat(prefix, std::string(s.message())));
}

absl::StatusOr<ResolvedPeak> PeakFromGpu(const std::string& gpu, accounting::Dtype dtype, PeakNeed need) {
  absl::StatusOr<Peak> p =
      need.flops ? accounting::DatasheetPeak(gpu, dtype) : accounting::DatasheetBandwidth(gpu);
  if (!p.ok()) return Prefixed("--gpu: ", p.status());
  ResolvedPeak r;
  r.peak = *p;
  r.kind = "datasheet";
  absl::StatusOr<const accounting::DatasheetEntry*> e = accounting::FindDatasheetEntry(gpu);
  r.label = e.ok() ? Token((*e)->name) : Token(gpu);
  return r;
}

absl::StatusOr<ResolvedPeak> PeakFromCeilings(const std::string& path, accounting::Dtype dtype,
                                              PeakNeed need) {
  absl::StatusOr<accounting::Ceilings> c = accounting::ReadCeilings(path);
  if (!c.ok()) return Prefixed("--ceilings: ", c.status());
  ResolvedPeak r;
  if (need.flops) {
    absl::StatusOr<Peak> p = accounting::MeasuredPeak(*c, dtype, path);
    if (!p.ok()) return Prefixed("--ceilings: ", p.status());
    r.peak = *p;
  } else {
    r.peak.bytes_per_s = c->bandwidth_bytes_per_s;
    r.peak.bandwidth_cache_resident = c->bandwidth_cache_resident;
    r.peak.source = absl::StrCat("measured: ", path, " (", c->machine, "; ", c->method, "; ", c->date, ")");
  }
  if (need.bandwidth && !(r.peak.bytes_per_s > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("--ceilings: '", path, "' has no bandwidth_bytes_per_s"));
  }
  if (need.bandwidth && r.peak.bandwidth_cache_resident) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--ceilings: '", path, "' has a cache-resident STREAM bandwidth (bandwidth_cache_resident: measured on ",
        c->stream_array_bytes, "-byte arrays, under 4x the last-level cache): not a memory bound; measure "
        "one with `bazel run //micro:ceilings` (without --sizes=quick) or give --bandwidth"));
  }
  if (need.bandwidth) {
    if (absl::Status st = TrafficBandwidth(path, *c, need, &r); !st.ok()) return st;
  }
  r.kind = "measured";
  r.label = Token(path);
  return r;
}

absl::StatusOr<ResolvedPeak> PeakFromFlags(const FlagValues& v, PeakNeed need) {
  ResolvedPeak r;
  std::vector<std::string> given;
  for (auto [name, needed, out] : {std::tuple{"peak_flops", need.flops, &r.peak.flops_per_s},
                                   std::tuple{"bandwidth", need.bandwidth, &r.peak.bytes_per_s}}) {
    if (needed) {
      absl::StatusOr<double> x = Positive(v, name);
      if (!x.ok()) return x.status();
      // A physical figure only (accounting/plausible.h): 1e-300 would print an MFU of inf%.
      const std::string flag = absl::StrCat("--", name);
      absl::Status plausible = out == &r.peak.flops_per_s ? accounting::CheckPlausibleFlops(flag, *x)
                                                          : accounting::CheckPlausibleBandwidth(flag, *x);
      if (!plausible.ok()) return plausible;
      *out = *x;
      given.push_back(absl::StrCat("--", name, "=", Get(v, name)));
    } else if (!Get(v, name).empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, " is not used by this command"));
    }
  }
  r.peak.source = absl::StrCat("flag: ", absl::StrJoin(given, " "));
  r.kind = "flag";
  r.label = "flag";
  return r;
}

absl::StatusOr<ResolvedPeak> ResolvePeak(const FlagValues& v, PeakNeed need) {
  const std::string gpu = Get(v, "gpu"), ceilings = Get(v, "ceilings");
  const bool by_flags =
      !Get(v, "peak_flops").empty() || (need.bandwidth_flag && !Get(v, "bandwidth").empty());
  const int sources = (!gpu.empty()) + by_flags + (!ceilings.empty());
  if (sources == 0) {
    return absl::InvalidArgumentError(absl::StrCat("a peak is required: give ", PeakOptions(need)));
  }
  if (sources > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("give only one source of the peak (", PeakOptions(need), "), not several"));
  }
  if (!Get(v, "traffic").empty()) {
    if (!accounting::ParseTrafficKind(Get(v, "traffic"))) {
      return absl::InvalidArgumentError(absl::StrCat("--traffic=", Get(v, "traffic"),
                                                     " is invalid: one of ", accounting::AllowedTrafficKindNames()));
    }
    if (ceilings.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--traffic=", Get(v, "traffic"),
                                                     " chooses a memory roof of a --ceilings file; with --gpu or "
                                                     "--bandwidth the bandwidth is the one given"));
    }
    need.traffic = Get(v, "traffic");
    need.traffic_given = true;
  }
  const std::string dtype_name = Get(v, "dtype").empty() ? "bf16" : Get(v, "dtype");
  absl::StatusOr<accounting::Dtype> dtype = accounting::ParseDtype(dtype_name);
  if (!dtype.ok()) return Prefixed("--dtype: ", dtype.status());
  if (!gpu.empty()) return PeakFromGpu(gpu, *dtype, need);
  if (!ceilings.empty()) return PeakFromCeilings(ceilings, *dtype, need);
  return PeakFromFlags(v, need);
}

// ---- commands ----

absl::StatusOr<std::string> RunMfu(const FlagValues& v) {
  double params = 0, tps = 0;
  if (absl::Status st = ReadPositive(v, {{"params", &params}, {"tokens_per_second", &tps}}); !st.ok()) {
    return st;
  }
  absl::StatusOr<int64_t> devices = PositiveInt(v, "devices", 1 << 24);
  if (!devices.ok()) return devices.status();
  absl::StatusOr<ResolvedPeak> peak =
      ResolvePeak(v, {/*flops=*/true, /*bandwidth=*/false, /*bandwidth_flag=*/false});
  if (!peak.ok()) return peak.status();
  absl::StatusOr<double> mfu =
      accounting::MfuFromThroughput(params, tps, static_cast<int>(*devices), peak->peak.flops_per_s);
  if (!mfu.ok()) return mfu.status();
  // An MFU outside (0, 1] is not a result: the inputs claim more model FLOP/s than the peak
  // (or overflow it), which points at a wrong parameter count, throughput or peak.
  if (!(std::isfinite(*mfu) && *mfu > 0 && *mfu <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("MFU = 6 x --params x --tokens_per_second / (devices x peak) = ", Num(*mfu),
                     " is outside (0, 1]: 6 x ", Num(params), " x ", Num(tps),
                     " FLOP/s is more than the peak ", Num(*devices * peak->peak.flops_per_s),
                     " FLOP/s; check the parameter count, the throughput and the peak"));
  }
  const accounting::MfuBand& band = accounting::RateMfu(*mfu);
  const double model_flops_per_s = 6 * params * tps;
  std::string out;
  absl::StrAppendFormat(&out, "MFU: %s  [%s]\n", accounting::FormatPercent(*mfu), band.advice);
  absl::StrAppendFormat(
      &out,
      "  model FLOP/s: 6 * N * tokens/s = 6 * %s * %s = %s (6N per token; attention term not included)\n",
      Num(params), Num(tps), Num(model_flops_per_s));
  absl::StrAppendFormat(&out, "  peak: %d device(s) x %s FLOP/s = %s FLOP/s\n", *devices,
                        Num(peak->peak.flops_per_s), Num(*devices * peak->peak.flops_per_s));
  absl::StrAppendFormat(&out, "  peak source: %s\n", peak->peak.source);
  absl::StrAppendFormat(&out,
                        "result: mfu=%.6g percent=%.4g band=%s params=%s tokens_per_second=%s devices=%d "
                        "peak_flops=%s dtype=%s peak_kind=%s peak=%s convention=6N\n",
                        *mfu, *mfu * 100, band.name, Num(params), Num(tps), *devices,
                        Num(peak->peak.flops_per_s), Get(v, "dtype"), peak->kind, peak->label);
  return out;
}

absl::StatusOr<double> MfuFraction(const FlagValues& v) {
  const std::string raw = Get(v, "mfu");
  if (raw.empty())
    return absl::InvalidArgumentError("--mfu is required (a fraction in (0, 1], 0.45 for 45%)");
  double mfu = 0;
  if (!absl::SimpleAtod(raw, &mfu) || !(mfu > 0 && mfu <= 1)) {
    return FlagError("mfu", raw, "must be a fraction in (0, 1] (0.45 for 45%)");
  }
  return mfu;
}

absl::StatusOr<std::string> RunTrainTime(const FlagValues& v) {
  double params = 0, tokens = 0;
  if (absl::Status st = ReadPositive(v, {{"params", &params}, {"tokens", &tokens}}); !st.ok()) return st;
  absl::StatusOr<int64_t> devices = PositiveInt(v, "devices", 1 << 24);
  if (!devices.ok()) return devices.status();
  absl::StatusOr<double> mfu = MfuFraction(v);
  if (!mfu.ok()) return mfu.status();
  absl::StatusOr<ResolvedPeak> peak = ResolvePeak(v, {true, false, false});
  if (!peak.ok()) return peak.status();
  absl::StatusOr<double> seconds =
      accounting::TrainingSeconds(params, tokens, static_cast<int>(*devices), peak->peak.flops_per_s, *mfu);
  if (!seconds.ok()) return seconds.status();
  const double flops = 6 * params * tokens;
  const double days = *seconds / accounting::kSecondsPerDay;
  std::string out;
  absl::StrAppendFormat(&out, "training time: %.1f days (%.3g s, %.1f hours)\n", days, *seconds,
                        *seconds / 3600);
  absl::StrAppendFormat(&out, "  work: 6 * N * D = 6 * %s * %s = %s FLOPs (attention term not included)\n",
                        Num(params), Num(tokens), Num(flops));
  absl::StrAppendFormat(&out, "  rate: %d device(s) x %s FLOP/s x MFU %s = %s FLOP/s\n", *devices,
                        Num(peak->peak.flops_per_s), accounting::FormatPercent(*mfu, 1),
                        Num(*devices * peak->peak.flops_per_s * *mfu));
  absl::StrAppendFormat(&out, "  peak source: %s\n", peak->peak.source);
  absl::StrAppendFormat(&out,
                        "result: days=%.6g seconds=%.6g flops=%s params=%s tokens=%s devices=%d mfu=%s "
                        "peak_flops=%s dtype=%s peak_kind=%s peak=%s\n",
                        days, *seconds, Num(flops), Num(params), Num(tokens), *devices, Num(*mfu),
                        Num(peak->peak.flops_per_s), Get(v, "dtype"), peak->kind, peak->label);
  return out;
}

absl::StatusOr<std::string> RunDecodeBound(const FlagValues& v) {
  double params = 0, bpp = 0;
  if (absl::Status st = ReadPositive(v, {{"params", &params}, {"bytes_per_param", &bpp}}); !st.ok()) {
    return st;
  }
  absl::StatusOr<ResolvedPeak> peak =
      ResolvePeak(v, {/*flops=*/false, /*bandwidth=*/true, /*bandwidth_flag=*/true, /*traffic=*/"read"});
  if (!peak.ok()) return peak.status();
  absl::StatusOr<double> bound = accounting::DecodeTokensPerSecondBound(params, bpp, peak->peak.bytes_per_s);
  if (!bound.ok()) return bound.status();
  const double model_bytes = params * bpp;
  std::string out;
  absl::StrAppendFormat(&out, "decode upper bound: %.1f tokens/s per request (batch 1)\n", *bound);
  absl::StrAppendFormat(&out, "  bandwidth / model bytes = %s B/s / (%s params x %s B) = %s / %s\n",
                        Num(peak->peak.bytes_per_s), Num(params), Num(bpp), Num(peak->peak.bytes_per_s),
                        Num(model_bytes));
  absl::StrAppend(&out, "  every weight is read once per token; KV cache and activations ignored\n");
  absl::StrAppendFormat(&out, "  bandwidth source: %s\n", peak->peak.source);
  absl::StrAppendFormat(&out,
                        "result: tokens_per_second=%.6g params=%s bytes_per_param=%s model_bytes=%s "
                        "bandwidth=%s peak_kind=%s peak=%s%s\n",
                        *bound, Num(params), Num(bpp), Num(model_bytes), Num(peak->peak.bytes_per_s),
                        peak->kind, peak->label, peak->traffic.empty() ? "" : " traffic=" + peak->traffic);
  return out;
}

absl::StatusOr<std::string> RunRoofline(const FlagValues& v) {
  double flops = 0, bytes = 0;
  if (absl::Status st = ReadPositive(v, {{"flops", &flops}, {"bytes", &bytes}}); !st.ok()) return st;
  absl::StatusOr<ResolvedPeak> peak = ResolvePeak(v, {true, true, true, "copy"});
  if (!peak.ok()) return peak.status();
  const accounting::RooflineResult r =
      accounting::Roofline(peak->peak.flops_per_s, peak->peak.bytes_per_s, flops, bytes);
  const char* bound = r.memory_bound ? "memory" : "compute";
  std::string out;
  absl::StrAppendFormat(&out, "intensity:  %.4g FLOP/byte (%s FLOPs / %s bytes)\n", r.intensity, Num(flops),
                        Num(bytes));
  absl::StrAppendFormat(&out, "ridge:      %.4g FLOP/byte (peak %s FLOP/s / bandwidth %s B/s)\n", r.ridge,
                        Num(peak->peak.flops_per_s), Num(peak->peak.bytes_per_s));
  absl::StrAppendFormat(&out, "bound:      %.4g FLOP/s (intensity x bandwidth)\n", r.bound_flops_per_s);
  absl::StrAppendFormat(&out, "attainable: %.4g FLOP/s = min(peak, bound): %s-bound\n",
                        r.attainable_flops_per_s, bound);
  absl::StrAppendFormat(&out, "  peak source: %s\n", peak->peak.source);
  absl::StrAppendFormat(
      &out,
      "result: intensity=%.6g ridge=%.6g bound_flops_per_s=%.6g attainable_flops_per_s=%.6g "
      "bound=%s peak_flops=%s bandwidth=%s dtype=%s peak_kind=%s peak=%s%s\n",
      r.intensity, r.ridge, r.bound_flops_per_s, r.attainable_flops_per_s, bound, Num(peak->peak.flops_per_s),
      Num(peak->peak.bytes_per_s), Get(v, "dtype"), peak->kind, peak->label,
      peak->traffic.empty() ? "" : " traffic=" + peak->traffic);
  return out;
}

// ---- gpt ----

// What `gpt` runs: the shape (with its switches), where it came from, and the crop and batch.
struct GptRun {
  accounting::GptShape shape;
  std::string preset;            // --preset's name, or empty
  std::string model = "custom";  // the preset's name, NAME-custom with flags over it, or custom
  int64_t real_vocab = 0;        // tokens; a preset's shape.vocab is the padded row count
  int64_t seq = 0, batch = 1;
};

constexpr int64_t kMaxGptDim = int64_t{1} << 24;

// Every digit of an integer-valued figure (FLOPs per token are integers): 57914449920, not 5.79144e+10.
std::string Exact(double v) { return absl::StrFormat("%.17g", v); }

// A shape value as the user knows it: the flag they gave, or the preset's value.
std::string Named(const FlagValues& v, const GptRun& g, const std::string& name, int64_t value) {
  if (!Get(v, name).empty()) return absl::StrCat("--", name, "=", Get(v, name));
  return absl::StrCat(g.preset, "'s ", name, "=", value);
}

// The preset (--preset) or GPT-2's switches, then every shape flag given over them.
absl::Status GptShapeFromFlags(const FlagValues& v, GptRun* g) {
  accounting::GptShape& s = g->shape;
  const bool preset = !Get(v, "preset").empty();
  if (preset) {
    absl::StatusOr<model::GptConfig> c = model::GptPreset(Get(v, "preset"));
    if (!c.ok()) return Prefixed("--preset: ", c.status());
    s = model::ToGptShape(*c);
    g->preset = g->model = c->name;
    g->real_vocab = c->vocab;
  }
  bool custom = false;
  for (auto [name, out] :
       {std::pair{"layers", &s.layers}, std::pair{"heads", &s.heads}, std::pair{"width", &s.width},
        std::pair{"vocab", &s.vocab}, std::pair{"block", &s.block}, std::pair{"kv_heads", &s.kv_heads},
        std::pair{"mlp_hidden", &s.mlp_hidden}}) {
    const bool optional = std::string(name) == "kv_heads" || std::string(name) == "mlp_hidden";
    if (Get(v, name).empty()) {
      if (preset || optional) continue;
      return absl::InvalidArgumentError(absl::StrCat("--", name, " is required without --preset (",
                                                     FindFlag(name)->help, "); or give --preset=NAME (",
                                                     absl::StrJoin(model::GptPresetNames(), ", "), ")"));
    }
    absl::StatusOr<int64_t> x = PositiveInt(v, name, kMaxGptDim);
    if (!x.ok()) return x.status();
    *out = *x;
    custom = true;
  }
  if (!Get(v, "vocab").empty()) g->real_vocab = s.vocab;
  // The switches: a given flag wins; without a preset, GPT-2's (biases on).
  auto flag = [&](const char* name, bool* out, bool invert) {
    if (Get(v, name).empty()) return;
    *out = (Get(v, name) == "true") != invert;
    custom = true;
  };
  if (!preset) s.bias = true;
  flag("bias", &s.bias, false);
  flag("swiglu", &s.swiglu, false);
  flag("rmsnorm", &s.rmsnorm, false);
  flag("rope", &s.learned_positions, true);
  flag("untied", &s.tied, true);
  if (preset && custom) g->model += "-custom";
  return absl::OkStatus();
}

absl::StatusOr<GptRun> GptRunFromFlags(const FlagValues& v) {
  GptRun g;
  if (absl::Status st = GptShapeFromFlags(v, &g); !st.ok()) return st;
  accounting::GptShape& s = g.shape;
  if (s.width % s.heads != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        Named(v, g, "heads", s.heads), " is invalid: does not divide ", Named(v, g, "width", s.width)));
  }
  if (s.heads % s.kv_head_count() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(Named(v, g, "kv_heads", s.kv_head_count()), " is invalid: does not divide ",
                     Named(v, g, "heads", s.heads), " (each K/V head serves a whole group of query heads)"));
  }
  if (!s.learned_positions && s.head_size() % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrCat("RoPE needs an even head size: width / heads = ", s.width,
                                                   " / ", s.heads, " = ", s.head_size(),
                                                   " (give --norope or other sizes)"));
  }
  if (absl::Status st = accounting::ValidateGptShape(s); !st.ok()) return st;
  g.seq = s.block;
  if (!Get(v, "seq").empty()) {
    absl::StatusOr<int64_t> x = PositiveInt(v, "seq", kMaxGptDim);
    if (!x.ok()) return x.status();
    if (*x > s.block) {
      return FlagError("seq", Get(v, "seq"), absl::StrCat("must be <= ", Named(v, g, "block", s.block)));
    }
    g.seq = *x;
  }
  if (!Get(v, "batch").empty()) {
    absl::StatusOr<int64_t> x = PositiveInt(v, "batch", kMaxGptDim);
    if (!x.ok()) return x.status();
    g.batch = *x;
  }
  return g;
}

// The projects that count each way, for the printed header.
const char* ConventionWho(accounting::AttentionConvention conv) {
  return conv == accounting::AttentionConvention::kFull
             ? "torchtitan, PaLM, nanoGPT: the whole T x T score matrix, masked half included"
             : "Megatron-LM, llm.c: only the causal half of QK^T and AV";
}

// One attention convention's FLOPs: printed lines, and the keys appended to `result`.
absl::Status AppendConvention(const GptRun& g, int64_t n, accounting::AttentionConvention conv,
                              std::string* out, std::string* result) {
  absl::StatusOr<accounting::StepFlops> f = accounting::GptStepFlops(g.shape, g.seq, g.batch, 1, conv);
  if (!f.ok()) return f.status();
  const double fwd = accounting::ForwardFlopsPerToken(g.shape, g.seq, conv);
  const std::string& name = accounting::ConventionName(conv);
  absl::StrAppendFormat(out, "attention %s (6N + %s; %s):\n", name, accounting::ConventionFormula(conv),
                        ConventionWho(conv));
  absl::StrAppendFormat(out, "  train FLOPs per token:    %.11g  (6N = %.11g, attention = %.11g)\n",
                        f->model_flops_per_token, 6.0 * n,
                        accounting::AttentionTrainFlopsPerToken(g.shape, g.seq, conv));
  absl::StrAppendFormat(out, "  train FLOPs per sequence: %.6g\n", f->model_flops_per_sequence);
  absl::StrAppendFormat(out, "  train FLOPs per step:     %.6g  (%d tokens)\n", f->model_flops_per_step,
                        f->tokens);
  absl::StrAppendFormat(out, "  forward FLOPs per token:  %.11g  (2N + attention/3)\n", fwd);
  const std::string key = absl::StrReplaceAll(name, {{"-", "_"}});
  absl::StrAppend(result, " train_flops_per_token_", key, "=", Exact(f->model_flops_per_token),
                  " train_flops_per_step_", key, "=", Exact(f->model_flops_per_step),
                  " forward_flops_per_token_", key, "=", Exact(fwd));
  return absl::OkStatus();
}

// "12.85 GB" (decimal units).
std::string Gb(double bytes) { return absl::StrFormat("%.2f GB", bytes / 1e9); }

// The training state of mixed precision with fp32 master weights (torchtitan's and Megatron-LM's
// default): weights, gradients and AdamW's two moments, 4 + 4 + 8 bytes per parameter.
void AppendTrainingMemory(int64_t params, std::string* out, std::string* result) {
  const double p = static_cast<double>(params);
  const double weights = 4 * p, grads = 4 * p, adamw = 8 * p;
  absl::StrAppend(
      out,
      "training memory (fp32 master weights, fp32 gradients, AdamW's m and v in fp32: 4 + 4 + 8 = "
      "16 bytes per parameter):\n");
  absl::StrAppendFormat(out, "  weights  %s  (fp32, 4 B x %d)\n", Gb(weights), params);
  absl::StrAppendFormat(out, "  grads    %s  (fp32, 4 B x %d)\n", Gb(grads), params);
  absl::StrAppendFormat(out, "  AdamW    %s  (m and v, fp32, 8 B x %d)\n", Gb(adamw), params);
  absl::StrAppendFormat(out,
                        "  total    %s on one device; sharding (ZeRO-3, FSDP) divides it by the ranks. Not "
                        "counted: activations, bf16 working copies of the weights, communication buffers\n",
                        Gb(weights + grads + adamw));
  absl::StrAppend(result, " weights_bytes=", Exact(weights), " grads_bytes=", Exact(grads),
                  " adamw_bytes=", Exact(adamw), " train_state_bytes=", Exact(weights + grads + adamw));
}

// "KV=8 (grouped-query), F=14336, RMSNorm, RoPE, SwiGLU, untied LM head".
std::string DescribeSwitches(const accounting::GptShape& s) {
  return absl::StrCat("KV=", s.kv_head_count(),
                      s.kv_head_count() < s.heads ? " (grouped-query)" : " (multi-head)", ", F=", s.hidden(),
                      ", ", s.rmsnorm ? "RMSNorm" : "LayerNorm", ", ",
                      s.learned_positions ? "learned positions" : "RoPE", ", ", s.swiglu ? "SwiGLU" : "GeLU",
                      ", ", s.tied ? "tied" : "untied", " LM head");
}

// The model/ config of a run's shape (the memory plans take one): the real vocabulary padded to
// a multiple of 64 as the models pad it.
model::GptConfig ConfigOf(const GptRun& g) {
  const accounting::GptShape& s = g.shape;
  model::GptConfig c;
  c.name = g.model;
  c.layers = static_cast<int>(s.layers);
  c.heads = static_cast<int>(s.heads);
  c.width = static_cast<int>(s.width);
  c.vocab = static_cast<int>(g.real_vocab > 0 ? g.real_vocab : s.vocab);
  c.padded_vocab = std::max(static_cast<int>(s.vocab), model::PadVocab(c.vocab));
  c.block = static_cast<int>(s.block);
  c.bias = s.bias;
  c.tie_weights = s.tied;
  c.norm = s.rmsnorm ? model::NormKind::kRmsNorm : model::NormKind::kLayerNorm;
  c.positions = s.learned_positions ? model::PositionKind::kLearned : model::PositionKind::kRope;
  c.mlp = s.swiglu ? model::MlpKind::kSwiglu : model::MlpKind::kGelu;
  c.mlp_hidden = static_cast<int>(s.mlp_hidden);
  c.kv_heads = static_cast<int>(s.kv_heads);
  return c;
}

// --recompute's levels: one, or all four; gelu names a GeLU MLP's activation, swiglu a SwiGLU one's.
absl::StatusOr<std::vector<accounting::Recompute>> LedgerLevels(const std::string& value, bool swiglu) {
  using R = accounting::Recompute;
  const std::string act = swiglu ? "swiglu" : "gelu";
  if (value.empty() || value == "none") return std::vector<R>{R::kNone};
  if (value == "all") return std::vector<R>{R::kNone, R::kActivation, R::kAttention, R::kBlock};
  if (value == act) return std::vector<R>{R::kActivation};
  if (value == "attention") return std::vector<R>{R::kAttention};
  if (value == "block") return std::vector<R>{R::kBlock};
  if (value == "gelu" || value == "swiglu") {
    return FlagError("recompute", value,
                     absl::StrCat("recomputes the ", value == "gelu" ? "GeLU" : "SwiGLU", " MLP's activation; this "
                                  "model's MLP is ", act, " (use --recompute=", act, ")"));
  }
  return FlagError("recompute", value, absl::StrCat("not one of none, ", act, ", attention, block, all"));
}

struct LedgerRow {
  int64_t params = 0, grads = 0, adamw = 0, copy = 0, activations = 0, scratch = 0, workspace = 0;
  int64_t total() const { return params + grads + adamw + copy + activations + scratch + workspace; }
};

// The memory ledger (--recompute, --gpu): the CPU model's buffers (model/gpt_memory.h, fp32,
// activations and the backward's scratch together), or the CUDA model's plan in bf16
// (model/cuda/cuda_memory.h, attention on cuDNN, its workspace not known before its graph is
// built) against the GPU's memory; a line per level.
absl::Status AppendMemoryLedger(const FlagValues& v, const GptRun& g, std::string* out, std::string* result) {
  const model::GptConfig c = ConfigOf(g);
  absl::StatusOr<std::vector<accounting::Recompute>> levels =
      LedgerLevels(Get(v, "recompute"), c.mlp == model::MlpKind::kSwiglu);
  if (!levels.ok()) return levels.status();
  const accounting::DatasheetEntry* gpu = nullptr;
  if (!Get(v, "gpu").empty()) {
    absl::StatusOr<const accounting::DatasheetEntry*> e = accounting::FindDatasheetEntry(Get(v, "gpu"));
    if (!e.ok()) return Prefixed("--gpu: ", e.status());
    gpu = *e;
  }
  const int B = static_cast<int>(g.batch), T = static_cast<int>(g.seq);
  if (gpu == nullptr) {
    absl::StrAppendFormat(out, "memory ledger: the CPU model's buffers (fp32; activations with the backward's "
                               "scratch); gpt_step adds its start-up measurements and about 400 MB of runtime\n");
  } else {
    absl::StrAppendFormat(out, "memory ledger: the CUDA model's plan in bf16 (fp32 master weights, gradients and "
                               "AdamW, a bf16 weight copy, bf16 activations, attention on cuDNN: no T x T scores, "
                               "its workspace not counted) against the %s's %s; a level keeps one layer's copy of "
                               "the per-layer tensors it recomputes (gpt_step --device=cuda --recompute=LEVEL)\n",
                          gpu->name, Gb(gpu->memory_bytes));
  }
  absl::StrAppendFormat(out, "  %-10s %10s %10s %10s %10s %12s %10s %10s %10s%s\n", "level", "params", "grads",
                        "AdamW", "bf16 copy", "activations", "scratch", "workspace", "total",
                        gpu ? absl::StrCat("  fits ", Gb(gpu->memory_bytes), "?") : "");
  std::vector<std::string> fitting;
  int64_t state = 0;  // parameters, gradients, AdamW and the copy: what no level changes
  for (accounting::Recompute level : *levels) {
    LedgerRow r;
    if (gpu == nullptr) {
      absl::StatusOr<model::MemoryEstimate> m = model::EstimateCpuTrainingMemory(c, B, T, false, level);
      if (!m.ok()) return m.status();
      r = {m->params_bytes, m->grads_bytes, m->adamw_bytes, m->bf16_bytes, m->activations_bytes, 0, 0};
    } else {
      model::cuda::AttentionMemory cudnn;
      cudnn.cudnn = true;
      absl::StatusOr<model::cuda::CudaMemoryPlan> p = model::cuda::PlanCudaMemory(
          c, B, T, model::cuda::StorageType::kBf16, model::cuda::kCublasLtWorkspaceBytes, cudnn, level);
      if (!p.ok()) return p.status();
      using G = model::cuda::MemoryGroup;
      auto group = [&](G x) { return p->group_bytes[static_cast<int>(x)]; };
      r = {group(G::kParams), group(G::kGrads), group(G::kAdamW), group(G::kWeightCopy), group(G::kActivations),
           group(G::kScratch), p->workspace_bytes};
    }
    const std::string name = level == accounting::Recompute::kActivation
                                 ? (c.mlp == model::MlpKind::kSwiglu ? "swiglu" : "gelu")
                                 : accounting::RecomputeName(level);
    std::string fits;
    if (gpu != nullptr) {
      const double left = gpu->memory_bytes - r.total();
      fits = left >= 0 ? absl::StrCat("  yes, ", Gb(left), " left")
                       : absl::StrCat("  no, ", Gb(-left), " over");
      absl::StrAppend(result, " fits_", name, "=", left >= 0 ? 1 : 0);
      if (left >= 0) fitting.push_back(name);
    }
    state = r.params + r.grads + r.adamw + r.copy;
    absl::StrAppendFormat(out, "  %-10s %10s %10s %10s %10s %12s %10s %10s %10s%s\n", name, Gb(r.params),
                          Gb(r.grads), Gb(r.adamw), Gb(r.copy), Gb(r.activations), Gb(r.scratch), Gb(r.workspace),
                          Gb(r.total()), fits);
    absl::StrAppend(result, " memory_activations_", name, "=", r.activations, " memory_total_", name, "=",
                    r.total());
  }
  if (gpu != nullptr) {
    if (!fitting.empty()) {
      absl::StrAppend(out, "  fits at --recompute=", absl::StrJoin(fitting, ", "), " on one ", gpu->name, "\n");
    } else if (state > gpu->memory_bytes) {
      absl::StrAppend(out, "  fits at no level: the parameters, gradients, AdamW and the bf16 copy alone take ",
                      Gb(state), " of ", Gb(gpu->memory_bytes),
                      "; shard them over the ranks (ZeRO, FSDP) or keep fewer bytes per parameter\n");
    } else {
      absl::StrAppend(out, "  fits at none of these levels on one ", gpu->name, "; a smaller batch or sequence\n");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> RunGpt(const FlagValues& v) {
  absl::StatusOr<GptRun> g = GptRunFromFlags(v);
  if (!g.ok()) return g.status();
  const accounting::GptShape& s = g->shape;
  const int64_t n_all = accounting::GptParamCount(s, true);
  const int64_t n_no_wpe = accounting::GptParamCount(s, false);
  const int64_t n = accounting::FlopParamCount(s);
  std::string out;
  const std::string padded =
      g->real_vocab > 0 && g->real_vocab != s.vocab ? absl::StrCat(" (", g->real_vocab, " padded)") : "";
  absl::StrAppendFormat(&out, "GPT: L=%d H=%d C=%d V=%d%s block=%d bias=%s; T=%d%s, batch=%d\n", s.layers,
                        s.heads, s.width, s.vocab, padded, s.block, s.bias ? "true" : "false", g->seq,
                        g->seq < s.block ? " (cropped)" : "", g->batch);
  absl::StrAppendFormat(&out, "model: %s; %s\n", g->model, DescribeSwitches(s));
  absl::StrAppendFormat(
      &out,
      "parameters: %d in all (%d without position embeddings); N = %d for FLOPs (torchtitan's "
      "rule: no position table, no untied input embedding)\n",
      n_all, n_no_wpe, n);
  std::string result =
      absl::StrCat("result: params=", n_all, " params_without_wpe=", n_no_wpe, " flop_params=", n,
                   " seq=", g->seq, " batch=", g->batch, " tokens_per_step=", g->batch * g->seq);
  for (auto conv : {accounting::AttentionConvention::kFull, accounting::AttentionConvention::kCausalHalved}) {
    if (absl::Status st = AppendConvention(*g, n, conv, &out, &result); !st.ok()) return st;
  }
  AppendTrainingMemory(n_all, &out, &result);
  if (!Get(v, "recompute").empty() || !Get(v, "gpu").empty()) {
    if (absl::Status st = AppendMemoryLedger(v, *g, &out, &result); !st.ok()) return st;
  }
  absl::StrAppend(&out, result, " model=", Token(g->model), "\n");
  return out;
}

bool WantsHelp(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "--help" || a == "-h" || a == "--helpfull" || a == "-help") return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::string> RunCommand(const std::string& command, const FlagValues& flags) {
  if (command == kMfu) return RunMfu(flags);
  if (command == kTrainTime) return RunTrainTime(flags);
  if (command == kDecodeBound) return RunDecodeBound(flags);
  if (command == kRoofline) return RunRoofline(flags);
  if (command == kGpt) return RunGpt(flags);
  return absl::InvalidArgumentError(absl::StrCat("unknown command '", command, "'"));
}

Outcome Main(const std::vector<std::string>& args) {
  Outcome o;
  if (args.empty()) {
    o.err = GeneralHelp();
    o.exit_code = kUsageError;
    return o;
  }
  const std::string& name = args[0];
  if (name == "--help" || name == "-h" || name == "help" || name == "--helpfull") {
    o.out = GeneralHelp();
    return o;
  }
  if (FindCommand(name) == nullptr) {
    o.err = absl::StrCat("estimate: unknown command '", name, "'\n", GeneralHelp());
    o.exit_code = kUsageError;
    return o;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (WantsHelp(rest)) {
    o.out = CommandHelp(name);
    return o;
  }
  absl::StatusOr<FlagValues> flags = ParseFlags(name, rest);
  absl::StatusOr<std::string> report = flags.ok() ? RunCommand(name, *flags) : flags.status();
  if (!report.ok()) {
    o.err = absl::StrCat("estimate ", name, ": ", report.status().message(), "\n");
    o.exit_code = kUsageError;
    return o;
  }
  o.out = *report;
  return o;
}

}  // namespace estimate
