// The CPU's bf16 ceiling, measured like the fp32 FMA ceiling (fma_peak.h): a register-resident
// loop of independent dot-product chains on every thread, so nothing but the bf16 units limits it.
//
//   AVX512-BF16: VDPBF16PS on 24 zmm accumulators; each instruction does 16 lanes x 2 bf16
//                products, added in fp32: 64 FLOPs (Zen 4 and 5, Cooper Lake, Sapphire Rapids on).
//   AMX-BF16:    TDPBF16PS on 4 accumulator tiles (16 x 16 fp32) from 2 A tiles (16 x 32 bf16)
//                and 2 B tiles: 16 x 16 x 32 products per instruction, 16384 FLOPs (Sapphire
//                Rapids on). Linux grants a process AMX's tile data only on request,
//                arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) (Linux 5.16 or newer); when
//                the kernel refuses, the AMX loop is not run and the reason is reported.
// One multiply-add = 2 FLOPs, as for fp32 (accounting/costs.h convention).
#ifndef MEASURE_BF16_PEAK_H_
#define MEASURE_BF16_PEAK_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace micro {

enum class Bf16Isa { kAvx512Bf16, kAmx };

// "AVX512-BF16", "AMX-BF16"; the loop's instruction: "VDPBF16PS", "TDPBF16PS".
const char* Bf16IsaName(Bf16Isa isa);
const char* Bf16IsaInstruction(Bf16Isa isa);
// The short key used in case names and ceilings methods: "avx512_bf16", "amx_bf16".
const char* Bf16IsaKey(Bf16Isa isa);

// Whether the CPU (cpuid, at run time) has the instructions; for AMX also the tile
// architecture. Says nothing about the kernel's permission.
bool Bf16IsaSupported(Bf16Isa isa);

// The syscall arch_prctl(code, arg): returns 0 or -errno. Tests pass a fake one.
using ArchPrctlFn = std::function<long(int code, unsigned long arg)>;

// Asks the kernel for AMX tile data (process-wide, once is enough). OK when granted; otherwise
// FailedPrecondition naming the call, the errno text and what it needs (Linux 5.16 or newer).
// Without `fn` the real syscall is made, unless the environment variable kRefuseAmxEnv is set to
// 1: then the kernel's refusal is simulated (EPERM), for tests of the message.
inline constexpr char kRefuseAmxEnv[] = "MLBENCH_TEST_REFUSE_AMX";
absl::Status RequestAmxTileData(const ArchPrctlFn& fn = nullptr);

struct Bf16PeakResult {
  Bf16Isa isa = Bf16Isa::kAvx512Bf16;
  int threads = 0;
  double flops = 0;        // FLOPs executed in the timed run, all threads
  double seconds = 0;      // wall time of the timed run
  double flops_per_s = 0;  // flops / seconds
  float checksum = 0;      // sum of the accumulators (keeps the loop alive; finite)
};

// FLOPs per loop step of one thread: AVX512-BF16 24 x 64, AMX 4 x 16384.
int64_t Bf16FlopsPerStep(Bf16Isa isa);

// Runs `steps` loop steps on each of `threads` OpenMP threads (0: omp_get_max_threads()).
// Errors: the ISA unsupported, AMX's tile data refused, steps < 1, threads < 0.
absl::StatusOr<Bf16PeakResult> RunBf16Loop(Bf16Isa isa, int64_t steps, int threads = 0);

// Calibrated to about `seconds_per_trial` per run (at least 2^30 FLOPs per thread, as the FMA
// loop), then the best of `trials` runs.
absl::StatusOr<Bf16PeakResult> MeasureBf16Peak(Bf16Isa isa, double seconds_per_trial, int trials,
                                               int threads = 0);

// The CPU's bf16 peak: every loop this CPU can run, the faster kept. `notes` says what was left
// out and why ("no AMX-BF16 on this CPU", the kernel's refusal). Error (FailedPrecondition) when
// no loop could run: the CPU has neither AVX512-BF16 nor a usable AMX; the message says so.
struct CpuBf16Peak {
  Bf16PeakResult best;
  std::optional<Bf16PeakResult> avx512_bf16, amx;
  std::vector<std::string> notes;
  // "AMX-BF16 TDPBF16PS loop on 2 threads (4 accumulator tiles), best of 10": for sources.
  std::string Describe(int trials) const;
};
absl::StatusOr<CpuBf16Peak> MeasureCpuBf16Peak(double seconds_per_trial = 0.01, int trials = 10,
                                               int threads = 0);

// One line for a run's start-up: which bf16 units the CPU has ("AMX-BF16 and AVX512-BF16",
// "AVX512-BF16 (no AMX)", "none") without measuring anything.
std::string DescribeCpuBf16Units();

}  // namespace micro

#endif  // MEASURE_BF16_PEAK_H_
