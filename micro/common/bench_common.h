// What every micro benchmark binary shares: its own flags (taken out of argv before
// benchmark::Initialize), the run context recorded in the JSON, the peaks it divides by, the
// CUDA probe, and the counters every case reports (computed through accounting/).
//
// Counters (JSON keys; the console shows them with SI prefixes, e.g. FLOP/s=151.2G):
//   FLOP/s           achieved FLOP rate: flops / seconds per iteration
//   bytes/s          achieved byte rate (bytes from accounting::MatmulBytes / ElementwiseBytes)
//   intensity        FLOP per byte (accounting::ArithmeticIntensity)
//   peak_FLOP/s      the peak divided by; its source is in the case's label ("peak: ...")
//   peak_bytes/s     the STREAM copy bandwidth
//   pct_of_peak      100 x FLOP/s / peak_FLOP/s
//   pct_of_roofline  100 x FLOP/s / min(peak, intensity x bandwidth) (accounting::Roofline), the
//                    bandwidth being the case's own memory roof where it declares its traffic
//                    and the peak has memory roofs, else peak_bytes/s
// A case that declares its traffic (accounting::OpTraffic) adds, per iteration:
//   traffic_read_bytes, traffic_write_bytes, traffic_in_place (0/1), traffic_streaming_stores
//   (0/1), working_set_bytes, and roof_bytes/s: its own roof (accounting::RoofForTraffic: the
//   roof of its kind of traffic at the level its working set fits in), named in the label
//   ("roof: in_place DRAM 38.2 GB/s").
//   memory_bound     1 when intensity < ridge point
//   verified         1: the output matched its reference before timing (a mismatch is an
//                    error, never a number)
//   disturbed        1 when FLOP/s exceed the peak (pct_of_peak > 100: the peak was probed in a
//                    slow moment); the label then starts "DISTURBED: <reason>" and tools/gate
//                    and tools/bench refuse the case (accounting/disturbed.h). Bytes/s above the
//                    STREAM bandwidth are not judged: a cache-resident case may exceed it.
// Without a usable peak, the peak counters are left out and the label says why.
#ifndef MICRO_COMMON_BENCH_COMMON_H_
#define MICRO_COMMON_BENCH_COMMON_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "accounting/ceilings.h"
#include "accounting/dtype.h"
#include "accounting/memory_roofs.h"
#include "accounting/peaks.h"
#include "benchmark/benchmark.h"
#include "sysinfo/cuda_info.h"

namespace micro {

enum class SizeSet { kDefault, kQuick };

struct MicroFlags {
  std::string ceilings;               // --ceilings=FILE: CPU measured ceilings
  std::string cuda_ceilings;          // --cuda_ceilings=FILE: GPU measured ceilings
  std::string ceilings_out;           // --ceilings_out=FILE (//micro:ceilings only)
  std::string cuda_ceilings_out;      // --cuda_ceilings_out=FILE (//micro:ceilings only)
  SizeSet sizes = SizeSet::kDefault;  // --sizes=default|quick
};

enum class BinaryKind { kMatmul, kElementwise, kCeilings };

// Removes this binary's flags from argv (the rest goes to benchmark::Initialize). Paths come out
// absolute (harness/user_path.h: relative to the folder bazel run was started from). Errors name
// the flag, the value and what is allowed (e.g. --sizes=huge, or --ceilings_out on matmul).
absl::StatusOr<MicroFlags> ExtractMicroFlags(BinaryKind kind, int* argc, char** argv);

// "matmul", "elementwise", "ceilings".
std::string BinaryName(BinaryKind kind);

// Prints what this binary does, an example, its own flags, then Google Benchmark's; for --help
// (benchmark::Initialize prints it and exits 0).
void SetHelpKind(BinaryKind kind);
void PrintMicroHelp();

// Adds build_type (NDEBUG or not), compilation_mode, compile_flags, compiler, commit, the CPU
// GEMM libraries (gemm_onednn, gemm_openblas: model/gemm_info.h's JSON: library, version,
// kernel or ISA and how it was chosen) and the CUDA device (or why none) to the JSON context.
void AddMicroContext();

// Probed once per process.
const sysinfo::CudaInventory& CudaProbe();
// "" when a CUDA device is usable, else "no CUDA device: <reason>".
std::string CudaSkipReason();

// The peaks a case divides by; thread-safe, each measured or read once, except that a CPU peak
// probed here is probed again when a case runs above it (CpuFor).
class PeakProvider {
 public:
  // Probes the CPU's FMA peak again (FLOP/s): MeasureCpuFmaPeak, or a test's fake.
  using FmaReprobe = std::function<absl::StatusOr<double>()>;
  // Re-probes a process makes at most: a rate miscounted above any peak stops costing time.
  static constexpr int kMaxReprobes = 4;

  PeakProvider(std::string cpu_ceilings_path, std::string cuda_ceilings_path);
  // A fixed CPU peak (tests; or a caller that measured it already). With `reprobe`, it counts
  // as probed here: CpuFor may probe again.
  // cpu_bf16: the bf16 peak CpuBf16 returns; without one, CpuBf16 is an error saying so.
  explicit PeakProvider(accounting::Peak cpu, FmaReprobe reprobe = nullptr,
                        std::optional<accounting::Peak> cpu_bf16 = std::nullopt);

  // --ceilings file, else measured at start-up (on first use: MeasureCpuCeilings).
  absl::StatusOr<accounting::Peak> Cpu();
  // The CPU peak a case that ran at `achieved_flops_per_s` divides by: Cpu(), except where that
  // peak was probed in this process and the rate is above it by more than
  // accounting::kCeilingTolerance. Then the FMA loop runs again now, right after the case, and
  // the peak becomes the best of the probes, for this case and every later one (its source says
  // so). A slow moment can only make a probe slower, so one start-up probe taken in a slow
  // moment must not condemn cases that ran in a fast one. A rate still above the best probe is
  // DISTURBED (SetWorkCounters). A --ceilings file is never re-probed: it is what the user gave.
  absl::StatusOr<accounting::Peak> CpuFor(double achieved_flops_per_s);
  // The CPU's bf16 peak: the --ceilings file's "bf16", else measured on first use (the faster
  // bf16 loop, measure/bf16_peak.h); never re-probed.
  absl::StatusOr<accounting::Peak> CpuBf16();
  // How many re-probes CpuFor has run.
  int reprobes();
  // --cuda_ceilings file, else the datasheet peak of `device_name` for `dtype`.
  absl::StatusOr<accounting::Peak> Cuda(const std::string& device_name, accounting::Dtype dtype);

 private:
  absl::StatusOr<accounting::Peak> CpuLocked();  // Cpu() with mu_ held

  std::mutex mu_;
  std::string cpu_path_, cuda_path_;
  std::optional<absl::StatusOr<accounting::Peak>> cpu_, cpu_bf16_;
  FmaReprobe reprobe_;       // empty: the CPU peak is never re-probed (a file or a fixed figure)
  double startup_flops_ = 0;  // the first probe's FMA rate, for the source text
  int reprobes_ = 0;
  std::optional<absl::StatusOr<accounting::Ceilings>> cuda_file_;
};

// Sets the counters above and the label "peak: <source>" (or "no peak: <why>"), after
// "<kernel>; " when `kernel` (what ran, e.g. the GEMM library's kernel) is given.
// seconds_per_iteration > 0.
// traffic: what the case declares it moves (nullptr: nothing declared; bytes alone count).
void SetWorkCounters(benchmark::State& state, const absl::StatusOr<accounting::Peak>& peak, double flops,
                     double bytes, double seconds_per_iteration, const std::string& kernel = "",
                     const accounting::OpTraffic* traffic = nullptr);

// Sends a --ceilings file that describes a CUDA device of this machine (its `machine` is the
// device's name, as //micro:ceilings writes when only CUDA cases ran) to cuda_ceilings, so one
// flag serves both. Errors: unreadable file; a GPU file given while --cuda_ceilings is too.
absl::Status RouteCeilingsFiles(MicroFlags* flags);

// Our flags (each path printed on stderr as resolved), a relative --benchmark_out made absolute
// (harness::ResolveBenchmarkOut), then benchmark::Initialize; returns 0 to go on, or an exit
// code (bad flags).
int InitMicroBinary(BinaryKind kind, int* argc, char** argv, MicroFlags* flags);

}  // namespace micro

#endif  // MICRO_COMMON_BENCH_COMMON_H_
