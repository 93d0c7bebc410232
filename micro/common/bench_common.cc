// Flags, context, peaks and counters shared by the micro benchmarks (bench_common.h).
#include "micro/common/bench_common.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/costs.h"
#include "accounting/disturbed.h"
#include "accounting/roofline.h"
#include "harness/atomic_file.h"
#include "harness/benchmark_main.h"
#include "harness/exit_codes.h"
#include "harness/user_path.h"
#include "measure/cpu_ceilings.h"
#include "micro/common/build_flags.inc"
#include "model/gemm_info.h"
#include "sysinfo/build_info.h"
#include "sysinfo/cpu_info.h"

namespace micro {
namespace {

BinaryKind g_help_kind = BinaryKind::kMatmul;

// "--name=value" -> value when `arg` is that flag.
bool FlagValue(const char* arg, const char* name, std::string* value) {
  const std::string prefix = absl::StrCat("--", name, "=");
  if (!absl::StartsWith(arg, prefix)) return false;
  *value = std::string(arg + prefix.size());
  return true;
}

}  // namespace

absl::StatusOr<MicroFlags> ExtractMicroFlags(BinaryKind kind, int* argc, char** argv) {
  MicroFlags flags;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const char* arg = argv[i];
    std::string v;
    if (FlagValue(arg, "ceilings", &v)) {
      flags.ceilings = harness::UserPath(v);
    } else if (FlagValue(arg, "cuda_ceilings", &v)) {
      flags.cuda_ceilings = harness::UserPath(v);
    } else if (FlagValue(arg, "ceilings_out", &v) || FlagValue(arg, "cuda_ceilings_out", &v)) {
      if (kind != BinaryKind::kCeilings) {
        return absl::InvalidArgumentError(
            absl::StrCat(arg,
                         ": only //micro:ceilings writes ceilings; here use --ceilings=FILE "
                         "or --cuda_ceilings=FILE to read them"));
      }
      (absl::StartsWith(arg, "--cuda") ? flags.cuda_ceilings_out : flags.ceilings_out) = harness::UserPath(v);
    } else if (FlagValue(arg, "sizes", &v)) {
      if (v == "default")
        flags.sizes = SizeSet::kDefault;
      else if (v == "quick")
        flags.sizes = SizeSet::kQuick;
      else
        return absl::InvalidArgumentError(absl::StrCat("--sizes=", v, ": allowed: default, quick"));
    } else {
      argv[out++] = argv[i];
      continue;
    }
    if (v.empty()) return absl::InvalidArgumentError(absl::StrCat(arg, ": the value is empty"));
  }
  *argc = out;
  argv[out] = nullptr;
  return flags;
}

void SetHelpKind(BinaryKind kind) { g_help_kind = kind; }

std::string BinaryName(BinaryKind kind) {
  switch (kind) {
    case BinaryKind::kMatmul: return "matmul";
    case BinaryKind::kElementwise: return "elementwise";
    case BinaryKind::kCeilings: return "ceilings";
  }
  return "micro";
}

void PrintMicroHelp() {
  switch (g_help_kind) {
    case BinaryKind::kMatmul:
      std::printf("%s",
                  "matmul: C = A B across sizes: oneDNN and OpenBLAS sgemm on the CPU, cuBLAS (fp32, tf32,\n"
                  "bf16, fp16) on a CUDA device; GFLOP/s, % of peak and of the roofline per case.\n\n"
                  "Usage: bazel run //micro:matmul -- [flags]\n"
                  "Example: bazel run //micro:matmul -- --benchmark_filter='cpu/onednn/fp32/M:2048/'\n\n");
      break;
    case BinaryKind::kElementwise:
      std::printf("%s",
                  "elementwise: the memory-bound ops of a transformer (scale, add, triad, gelu, adamw,\n"
                  "layernorm, softmax) on the CPU and a CUDA device; GB/s and % of the roofline per case.\n\n"
                  "Usage: bazel run //micro:elementwise -- [flags]\n"
                  "Example: bazel run //micro:elementwise -- --benchmark_filter='cpu/scale/N:16777216'\n\n");
      break;
    case BinaryKind::kCeilings:
      std::printf("%s",
                  "ceilings: the machine's measured ceilings (CPU FMA peak, STREAM bandwidth, the train\n"
                  "step's GEMM rates; GPU copy bandwidth and large-GEMM rate) and the JSON file the other\n"
                  "benchmarks and gpt_step read with --ceilings.\n\n"
                  "Usage: bazel run //micro:ceilings -- [flags]\n"
                  "Example: bazel run //micro:ceilings -- --ceilings_out=ceilings.json\n\n");
      break;
  }
  std::printf("%s",
              "CUDA cases are registered only when a CUDA device is usable (stderr says why not).\n"
              "Relative paths (the FILE of the flags below, and --benchmark_out) are relative to the\n"
              "folder bazel run was started from; the binary prints each as resolved on stderr.\n\n"
              "micro benchmark flags (besides Google Benchmark's, below):\n"
              "  --sizes=default|quick   quick: tiny sizes and a 0.01 s minimum time per case (what\n"
              "                          the cc_tests run); names then end in /min_time:0.010\n");
  if (g_help_kind == BinaryKind::kCeilings) {
    std::printf("%s",
                "  --ceilings_out=FILE     write the CPU ceilings measured here (fp32 FMA peak, STREAM\n"
                "                          copy bandwidth) as JSON for --ceilings. If no CPU case ran\n"
                "                          (e.g. --benchmark_filter=cuda) and --cuda_ceilings_out is not\n"
                "                          given, FILE gets the GPU ceilings instead.\n"
                "  --cuda_ceilings_out=FILE  write the GPU ceilings (device-to-device copy bandwidth,\n"
                "                          large GEMM rate per dtype) as JSON for --cuda_ceilings\n");
  } else {
    std::printf("%s",
                "  --ceilings=FILE         CPU peaks from a file written by\n"
                "                          `bazel run //micro:ceilings -- --ceilings_out=FILE`; without\n"
                "                          it the CPU peak is measured at start-up (FMA loop + STREAM\n"
                "                          copy, under a second) and labelled \"measured at start-up\".\n"
                "                          A file whose machine is this host's CUDA device is used as\n"
                "                          --cuda_ceilings instead.\n"
                "  --cuda_ceilings=FILE    GPU peaks from a file written with --cuda_ceilings_out;\n"
                "                          without it the datasheet peak of the device is used\n");
  }
  std::printf("\n%s\n\n", harness::kExitCodesHelp);
  benchmark::PrintDefaultHelp();
}

void AddMicroContext() {
  harness::AddRunContext();
  const sysinfo::BuildInfo build = sysinfo::GetBuildInfo();
  benchmark::AddCustomContext("build_type",
                              build.asserts ? "debug (assertions on, no NDEBUG)" : "release (NDEBUG)");
  benchmark::AddCustomContext("compilation_mode", build.compilation_mode);
  // MICRO_COPTS are the BUILD file's flags; a command-line --copt (e.g. --config=portable)
  // can override -march, so the ISA the compiler actually targeted is added from its macros.
  benchmark::AddCustomContext(
      "compile_flags",
      absl::StrCat(MICRO_COPTS, " (+ command-line --copt; compiler targeted ", build.target_isa, ")"));
  benchmark::AddCustomContext("compiler", build.compiler);
  benchmark::AddCustomContext("commit", build.commit);
  for (model::CpuGemmBackend b : {model::CpuGemmBackend::kOneDnn, model::CpuGemmBackend::kOpenBlas}) {
    benchmark::AddCustomContext(absl::StrCat("gemm_", model::CpuGemmBackendName(b)),
                                model::CpuGemmInfo(b).ToJson());
  }
  const sysinfo::CpuInfo cpu = sysinfo::ReadCpuInfo();
  benchmark::AddCustomContext("cpu_model", cpu.model);
  const sysinfo::CudaInventory& inv = CudaProbe();
  if (inv.available) {
    benchmark::AddCustomContext("cuda_device", inv.devices[0].name);
    benchmark::AddCustomContext("cuda_driver", sysinfo::CudaVersionString(inv.driver_version));
    benchmark::AddCustomContext("cuda_runtime", sysinfo::CudaVersionString(inv.runtime_version));
  } else {
    benchmark::AddCustomContext("cuda_device", absl::StrCat("none: ", inv.reason));
  }
}

const sysinfo::CudaInventory& CudaProbe() {
  static const sysinfo::CudaInventory* inv = new sysinfo::CudaInventory(sysinfo::ProbeCuda());
  return *inv;
}

std::string CudaSkipReason() {
  const sysinfo::CudaInventory& inv = CudaProbe();
  if (inv.available) return "";
  return absl::StrCat("no CUDA device: ", inv.reason);
}

PeakProvider::PeakProvider(std::string cpu_ceilings_path, std::string cuda_ceilings_path)
    : cpu_path_(std::move(cpu_ceilings_path)), cuda_path_(std::move(cuda_ceilings_path)) {}

PeakProvider::PeakProvider(accounting::Peak cpu, FmaReprobe reprobe, std::optional<accounting::Peak> cpu_bf16)
    : cpu_(std::move(cpu)), reprobe_(std::move(reprobe)), startup_flops_(cpu_->value().flops_per_s) {
  cpu_bf16_ = cpu_bf16 ? absl::StatusOr<accounting::Peak>(*cpu_bf16)
                       : absl::StatusOr<accounting::Peak>(absl::FailedPreconditionError(
                             "no bf16 peak: this provider was given an fp32 peak only"));
}

absl::StatusOr<accounting::Peak> PeakProvider::CpuLocked() {
  if (cpu_.has_value()) return *cpu_;
  absl::StatusOr<ResolvedCpuPeak> r = ResolveCpuPeakWithThreads(cpu_path_);
  if (!r.ok()) {
    cpu_ = r.status();
    return *cpu_;
  }
  cpu_ = r->peak;
  if (!r->from_file) {
    startup_flops_ = r->peak.flops_per_s;
    reprobe_ = []() -> absl::StatusOr<double> {
      absl::StatusOr<FmaPeakResult> f = MeasureCpuFmaPeak();
      if (!f.ok()) return f.status();
      return f->flops_per_s;
    };
  }
  return *cpu_;
}

absl::StatusOr<accounting::Peak> PeakProvider::CpuBf16() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!cpu_bf16_.has_value()) {
    if (!cpu_path_.empty()) {
      absl::StatusOr<ResolvedCpuPeak> r = ResolveCpuPeakWithThreads(cpu_path_, accounting::Dtype::kBf16);
      cpu_bf16_ = r.ok() ? absl::StatusOr<accounting::Peak>(r->peak) : absl::StatusOr<accounting::Peak>(r.status());
    } else {
      // The bf16 loops now; the bandwidth is the fp32 probe's STREAM copy (one STREAM run a process).
      absl::StatusOr<accounting::Peak> fp32 = CpuLocked();
      absl::StatusOr<CpuBf16Peak> b = MeasureCpuBf16Peak();
      if (!b.ok()) {
        cpu_bf16_ = b.status();
      } else {
        accounting::Peak p;
        p.flops_per_s = b->best.flops_per_s;
        p.bytes_per_s = fp32.ok() ? fp32->bytes_per_s : 0;
        p.bandwidth_cache_resident = fp32.ok() && fp32->bandwidth_cache_resident;
        p.source = absl::StrFormat("measured at start-up: %s %s loop x%d threads %.1f GFLOP/s%s",
                                   Bf16IsaName(b->best.isa), Bf16IsaInstruction(b->best.isa), b->best.threads,
                                   p.flops_per_s / 1e9,
                                   fp32.ok() ? absl::StrFormat(", STREAM copy %.1f GB/s", p.bytes_per_s / 1e9) : "");
        cpu_bf16_ = p;
      }
    }
  }
  return *cpu_bf16_;
}

absl::StatusOr<accounting::Peak> PeakProvider::Cpu() {
  std::lock_guard<std::mutex> lock(mu_);
  return CpuLocked();
}

absl::StatusOr<accounting::Peak> PeakProvider::CpuFor(double achieved_flops_per_s) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::StatusOr<accounting::Peak> peak = CpuLocked();
  // Re-probed only where the case would otherwise be DISTURBED (accounting::JudgeDisturbance);
  // a non-finite rate is not: no probe could settle it.
  const bool above = peak.ok() && peak->flops_per_s > 0 && std::isfinite(achieved_flops_per_s) &&
                     achieved_flops_per_s > peak->flops_per_s * (1 + accounting::kCeilingTolerance);
  if (!above || !reprobe_ || reprobes_ >= kMaxReprobes) return peak;
  ++reprobes_;
  const absl::StatusOr<double> again = reprobe_();
  accounting::Peak& p = cpu_->value();
  if (!again.ok()) {  // the best probe so far stands; the case is judged against it
    p.source = absl::StrCat(p.source, "; FMA re-probe after a case above it failed: ", again.status().message());
    return *cpu_;
  }
  const bool raised = *again > p.flops_per_s;
  p.source = absl::StrFormat(
      "%s; FMA re-probed after a case above it (%d of at most %d): %.1f GFLOP/s%s", p.source, reprobes_,
      kMaxReprobes, *again / 1e9,
      raised ? absl::StrFormat(", now the peak (start-up probe %.1f)", startup_flops_ / 1e9)
             : ", lower: the best probe stands");
  if (raised) p.flops_per_s = *again;
  return *cpu_;
}

int PeakProvider::reprobes() {
  std::lock_guard<std::mutex> lock(mu_);
  return reprobes_;
}

absl::StatusOr<accounting::Peak> PeakProvider::Cuda(const std::string& device_name, accounting::Dtype dtype) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cuda_path_.empty()) return accounting::DatasheetPeak(device_name, dtype);
  if (!cuda_file_.has_value()) cuda_file_ = accounting::ReadCeilings(cuda_path_);
  if (!cuda_file_->ok()) return cuda_file_->status();
  return accounting::MeasuredPeak(**cuda_file_, dtype, cuda_path_);
}

namespace {

// The traffic counters of a case that declares its traffic; its own roof, where the peak has one
// for its kind (nullopt: none, and the roofline uses the peak's bandwidth).
std::optional<accounting::HeldRoof> SetTrafficCounters(benchmark::State& state,
                                                       const absl::StatusOr<accounting::Peak>& peak,
                                                       const accounting::OpTraffic& t) {
  using benchmark::Counter;
  state.counters["traffic_read_bytes"] = Counter(t.read_bytes);
  state.counters["traffic_write_bytes"] = Counter(t.write_bytes);
  state.counters["traffic_in_place"] = Counter(t.in_place ? 1 : 0);
  state.counters["traffic_streaming_stores"] = Counter(t.streaming_stores ? 1 : 0);
  state.counters["working_set_bytes"] = Counter(t.working_set_bytes);
  if (!peak.ok()) return std::nullopt;
  std::optional<accounting::HeldRoof> roof = accounting::RoofForTraffic(peak->memory, t);
  if (roof) state.counters["roof_bytes/s"] = Counter(roof->bytes_per_s);
  return roof;
}

}  // namespace

void SetWorkCounters(benchmark::State& state, const absl::StatusOr<accounting::Peak>& peak, double flops,
                     double bytes, double seconds_per_iteration, const std::string& kernel,
                     const accounting::OpTraffic* traffic) {
  std::string prefix = kernel.empty() ? "" : kernel + "; ";
  using benchmark::Counter;
  const double s = seconds_per_iteration;
  state.counters["FLOP/s"] = Counter(s > 0 ? flops / s : 0);
  state.counters["bytes/s"] = Counter(s > 0 ? bytes / s : 0);
  state.counters["intensity"] = Counter(accounting::ArithmeticIntensity(flops, bytes));
  state.counters["verified"] = Counter(1);
  const std::optional<accounting::HeldRoof> roof =
      traffic != nullptr ? SetTrafficCounters(state, peak, *traffic) : std::nullopt;
  if (roof) absl::StrAppend(&prefix, "roof: ", roof->Label(), "; ");
  if (!peak.ok() || !(peak->flops_per_s > 0) || !(peak->bytes_per_s > 0)) {
    state.SetLabel(
        peak.ok() ? absl::StrCat(prefix, "no peak: '", peak->source, "' lacks a FLOP rate or a bandwidth")
                  : absl::StrCat(prefix, "no peak: ", peak.status().message()));
    return;
  }
  const accounting::RooflineResult r =
      accounting::Roofline(peak->flops_per_s, roof ? roof->bytes_per_s : peak->bytes_per_s, flops, bytes, s);
  state.counters["peak_FLOP/s"] = Counter(peak->flops_per_s);
  state.counters["peak_bytes/s"] = Counter(peak->bytes_per_s);
  state.counters["pct_of_peak"] = Counter(100.0 * r.achieved_flops_per_s / peak->flops_per_s);
  state.counters["pct_of_roofline"] = Counter(100.0 * r.fraction_of_bound);
  state.counters["memory_bound"] = Counter(r.memory_bound ? 1 : 0);
  // FLOP/s above the FMA peak cannot be: the peak was probed in a slow moment (or the FLOPs are
  // miscounted). Bytes/s above the STREAM bandwidth can (a cache-resident case), so only the
  // FLOP rate is judged.
  const accounting::Disturbance d =
      accounting::JudgeDisturbance({{"FLOP/s of the peak", r.achieved_flops_per_s, peak->flops_per_s}});
  state.counters["disturbed"] = Counter(d.disturbed ? 1 : 0);
  state.SetLabel(accounting::DisturbedLabel(d, absl::StrCat(prefix, "peak: ", peak->source)));
}

absl::Status RouteCeilingsFiles(MicroFlags* flags) {
  if (flags->ceilings.empty()) return absl::OkStatus();
  absl::StatusOr<accounting::Ceilings> c = accounting::ReadCeilings(flags->ceilings);
  if (!c.ok()) return c.status();
  for (const sysinfo::CudaDevice& d : CudaProbe().devices) {
    if (d.name != c->machine) continue;
    if (!flags->cuda_ceilings.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--ceilings=", flags->ceilings, " describes the GPU '", c->machine,
                       "' and --cuda_ceilings=", flags->cuda_ceilings, " is given too: give one GPU file"));
    }
    flags->cuda_ceilings = flags->ceilings;
    flags->ceilings.clear();
    break;
  }
  return absl::OkStatus();
}

int InitMicroBinary(BinaryKind kind, int* argc, char** argv, MicroFlags* flags) {
  absl::StatusOr<MicroFlags> f = ExtractMicroFlags(kind, argc, argv);
  absl::Status routed = f.ok() ? RouteCeilingsFiles(&*f) : f.status();
  // Outputs checked before any case runs, not after the measurements.
  for (const auto& [flag, path] :
       {std::pair<const char*, std::string>{"--ceilings_out", f.ok() ? f->ceilings_out : ""},
        {"--cuda_ceilings_out", f.ok() ? f->cuda_ceilings_out : ""}}) {
    if (!routed.ok() || path.empty()) continue;
    if (absl::Status w = harness::CheckWritable(path); !w.ok()) {
      routed = absl::InvalidArgumentError(absl::StrCat(flag, ": ", w.message()));
    }
  }
  if (!routed.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[0], std::string(routed.message()).c_str());
    return harness::kExitFailure;
  }
  *flags = *f;
  const std::string name = BinaryName(kind);
  for (const auto& [flag, path, verb] :
       {std::tuple{"ceilings", &flags->ceilings, "reading"},
        std::tuple{"cuda_ceilings", &flags->cuda_ceilings, "reading"},
        std::tuple{"ceilings_out", &flags->ceilings_out, "writing"},
        std::tuple{"cuda_ceilings_out", &flags->cuda_ceilings_out, "writing"}}) {
    if (!path->empty()) std::fprintf(stderr, "%s: --%s: %s %s\n", name.c_str(), flag, verb, path->c_str());
  }
  if (absl::StatusOr<std::string> out = harness::ResolveBenchmarkOut(name, argc, argv); !out.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[0], std::string(out.status().message()).c_str());
    return harness::kExitFailure;
  }
  SetHelpKind(kind);
  benchmark::Initialize(argc, argv, PrintMicroHelp);
  if (benchmark::ReportUnrecognizedArguments(*argc, argv)) return harness::kExitUsage;
  AddMicroContext();
  return 0;
}

}  // namespace micro
