// Flags, context, peaks and counters shared by the micro benchmarks (bench_common.h).
#include "micro/common/bench_common.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "accounting/costs.h"
#include "accounting/roofline.h"
#include "micro/common/build_flags.inc"
#include "harness/benchmark_main.h"
#include "harness/exit_codes.h"
#include "measure/cpu_ceilings.h"
#include "model/gemm_info.h"
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

std::string RunCommand(const std::string& cmd) {
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return "";
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof(buf), f) != nullptr) out += buf;
  pclose(f);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

absl::StatusOr<MicroFlags> ExtractMicroFlags(BinaryKind kind, int* argc, char** argv) {
  MicroFlags flags;
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const char* arg = argv[i];
    std::string v;
    if (FlagValue(arg, "ceilings", &v)) {
      flags.ceilings = v;
    } else if (FlagValue(arg, "cuda_ceilings", &v)) {
      flags.cuda_ceilings = v;
    } else if (FlagValue(arg, "ceilings_out", &v) || FlagValue(arg, "cuda_ceilings_out", &v)) {
      if (kind != BinaryKind::kCeilings) {
        return absl::InvalidArgumentError(
            absl::StrCat(arg, ": only //micro:ceilings writes ceilings; here use --ceilings=FILE "
                              "or --cuda_ceilings=FILE to read them"));
      }
      (absl::StartsWith(arg, "--cuda") ? flags.cuda_ceilings_out : flags.ceilings_out) = v;
    } else if (FlagValue(arg, "sizes", &v)) {
      if (v == "default") flags.sizes = SizeSet::kDefault;
      else if (v == "quick") flags.sizes = SizeSet::kQuick;
      else return absl::InvalidArgumentError(absl::StrCat("--sizes=", v, ": allowed: default, quick"));
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

void PrintMicroHelp() {
  std::printf("%s",
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

std::string GitCommit() {
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  std::string dir = ws != nullptr ? ws : ".";
  std::string out =
      RunCommand(absl::StrCat("git -C '", dir, "' describe --always --dirty --abbrev=40 2>/dev/null"));
  return out.empty() ? "unknown" : out;
}

void AddMicroContext() {
  harness::AddRunContext();
#ifdef NDEBUG
  benchmark::AddCustomContext("build_type", "release (NDEBUG)");
#else
  benchmark::AddCustomContext("build_type", "debug (assertions on, no NDEBUG)");
#endif
  benchmark::AddCustomContext("compilation_mode", MICRO_COMPILATION_MODE);
  // MICRO_COPTS are the BUILD file's flags; a command-line --copt (e.g. --config=portable)
  // can override -march, so the ISA the compiler actually targeted is added from its macros.
  std::string isa = "no AVX2";
#ifdef __AVX512F__
  isa = "AVX-512F";
#elif defined(__AVX2__)
  isa = "AVX2";
#endif
  benchmark::AddCustomContext(
      "compile_flags", absl::StrCat(MICRO_COPTS, " (+ command-line --copt; compiler targeted ",
                                    isa, ")"));
  benchmark::AddCustomContext("compiler", __VERSION__);
  benchmark::AddCustomContext("commit", GitCommit());
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

PeakProvider::PeakProvider(accounting::Peak cpu) : cpu_(std::move(cpu)) {}

absl::StatusOr<accounting::Peak> PeakProvider::Cpu() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!cpu_.has_value()) cpu_ = ResolveCpuPeak(cpu_path_);
  return *cpu_;
}

absl::StatusOr<accounting::Peak> PeakProvider::Cuda(const std::string& device_name,
                                                    accounting::Dtype dtype) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cuda_path_.empty()) return accounting::DatasheetPeak(device_name, dtype);
  if (!cuda_file_.has_value()) cuda_file_ = accounting::ReadCeilings(cuda_path_);
  if (!cuda_file_->ok()) return cuda_file_->status();
  return accounting::MeasuredPeak(**cuda_file_, dtype, cuda_path_);
}

void SetWorkCounters(benchmark::State& state, const absl::StatusOr<accounting::Peak>& peak,
                     double flops, double bytes, double seconds_per_iteration,
                     const std::string& kernel) {
  const std::string prefix = kernel.empty() ? "" : kernel + "; ";
  using benchmark::Counter;
  const double s = seconds_per_iteration;
  state.counters["FLOP/s"] = Counter(s > 0 ? flops / s : 0);
  state.counters["bytes/s"] = Counter(s > 0 ? bytes / s : 0);
  state.counters["intensity"] = Counter(accounting::ArithmeticIntensity(flops, bytes));
  state.counters["verified"] = Counter(1);
  if (!peak.ok() || !(peak->flops_per_s > 0) || !(peak->bytes_per_s > 0)) {
    state.SetLabel(peak.ok() ? absl::StrCat(prefix, "no peak: '", peak->source,
                                            "' lacks a FLOP rate or a bandwidth")
                             : absl::StrCat(prefix, "no peak: ", peak.status().message()));
    return;
  }
  const accounting::RooflineResult r =
      accounting::Roofline(peak->flops_per_s, peak->bytes_per_s, flops, bytes, s);
  state.counters["peak_FLOP/s"] = Counter(peak->flops_per_s);
  state.counters["peak_bytes/s"] = Counter(peak->bytes_per_s);
  state.counters["pct_of_peak"] = Counter(100.0 * r.achieved_flops_per_s / peak->flops_per_s);
  state.counters["pct_of_roofline"] = Counter(100.0 * r.fraction_of_bound);
  state.counters["memory_bound"] = Counter(r.memory_bound ? 1 : 0);
  state.SetLabel(absl::StrCat(prefix, "peak: ", peak->source));
}

absl::Status RouteCeilingsFiles(MicroFlags* flags) {
  if (flags->ceilings.empty()) return absl::OkStatus();
  absl::StatusOr<accounting::Ceilings> c = accounting::ReadCeilings(flags->ceilings);
  if (!c.ok()) return c.status();
  for (const sysinfo::CudaDevice& d : CudaProbe().devices) {
    if (d.name != c->machine) continue;
    if (!flags->cuda_ceilings.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--ceilings=", flags->ceilings, " describes the GPU '", c->machine,
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
  if (!routed.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[0], std::string(routed.message()).c_str());
    return harness::kExitFailure;
  }
  *flags = *f;
  SetHelpKind(kind);
  benchmark::Initialize(argc, argv, PrintMicroHelp);
  if (benchmark::ReportUnrecognizedArguments(*argc, argv)) return harness::kExitUsage;
  AddMicroContext();
  return 0;
}

}  // namespace micro
