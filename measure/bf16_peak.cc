// The bf16 loops of bf16_peak.h, written with intrinsics under target attributes so they exist in
// a build for any x86-64 CPU (a CPU without them reports them unsupported; they never run there).
#include "measure/bf16_peak.h"

#include <immintrin.h>
#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace micro {
namespace {

// As the FMA loop: a trial does at least 2^30 FLOPs per thread, so waking the OpenMP workers stays
// small against it.
constexpr int64_t kMinFlopsPerThreadPerTrial = int64_t{1} << 30;
constexpr int kAvx512Bf16Chains = 24;  // 24 zmm accumulators + a + b = 26 of 32 registers
constexpr int kAmxDotsPerStep = 4;     // 4 accumulator tiles, each one TDPBF16PS per step
constexpr int64_t kAmxFlopsPerDot = int64_t{16} * 16 * 32 * 2;

// Linux's arch_prctl codes for AMX (arch/x86/include/uapi/asm/prctl.h; the xfeature number).
constexpr int kArchReqXcompPerm = 0x1023;
constexpr unsigned long kXfeatureXtiledata = 18;

#define MICRO_DP_STEP(x) x = _mm512_dpbf16_ps(x, va, vb)

__attribute__((target("avx512f,avx512bf16"))) float DpLoopAvx512Bf16(int64_t steps, float a, float b) {
  // a and b as bf16 pairs; the accumulators grow by 2ab per step, small enough to stay finite.
  const __m512bh va = _mm512_cvtne2ps_pbh(_mm512_set1_ps(a), _mm512_set1_ps(a));
  const __m512bh vb = _mm512_cvtne2ps_pbh(_mm512_set1_ps(b), _mm512_set1_ps(b));
  __m512 c0 = _mm512_set1_ps(0.01f), c1 = _mm512_set1_ps(0.02f), c2 = _mm512_set1_ps(0.03f),
         c3 = _mm512_set1_ps(0.04f), c4 = _mm512_set1_ps(0.05f), c5 = _mm512_set1_ps(0.06f),
         c6 = _mm512_set1_ps(0.07f), c7 = _mm512_set1_ps(0.08f), c8 = _mm512_set1_ps(0.09f),
         c9 = _mm512_set1_ps(0.10f), c10 = _mm512_set1_ps(0.11f), c11 = _mm512_set1_ps(0.12f),
         c12 = _mm512_set1_ps(0.13f), c13 = _mm512_set1_ps(0.14f), c14 = _mm512_set1_ps(0.15f),
         c15 = _mm512_set1_ps(0.16f), c16 = _mm512_set1_ps(0.17f), c17 = _mm512_set1_ps(0.18f),
         c18 = _mm512_set1_ps(0.19f), c19 = _mm512_set1_ps(0.20f), c20 = _mm512_set1_ps(0.21f),
         c21 = _mm512_set1_ps(0.22f), c22 = _mm512_set1_ps(0.23f), c23 = _mm512_set1_ps(0.24f);
  for (int64_t s = 0; s < steps; ++s) {
    MICRO_DP_STEP(c0);
    MICRO_DP_STEP(c1);
    MICRO_DP_STEP(c2);
    MICRO_DP_STEP(c3);
    MICRO_DP_STEP(c4);
    MICRO_DP_STEP(c5);
    MICRO_DP_STEP(c6);
    MICRO_DP_STEP(c7);
    MICRO_DP_STEP(c8);
    MICRO_DP_STEP(c9);
    MICRO_DP_STEP(c10);
    MICRO_DP_STEP(c11);
    MICRO_DP_STEP(c12);
    MICRO_DP_STEP(c13);
    MICRO_DP_STEP(c14);
    MICRO_DP_STEP(c15);
    MICRO_DP_STEP(c16);
    MICRO_DP_STEP(c17);
    MICRO_DP_STEP(c18);
    MICRO_DP_STEP(c19);
    MICRO_DP_STEP(c20);
    MICRO_DP_STEP(c21);
    MICRO_DP_STEP(c22);
    MICRO_DP_STEP(c23);
  }
  __m512 s0 = _mm512_add_ps(_mm512_add_ps(c0, c1), _mm512_add_ps(c2, c3));
  __m512 s1 = _mm512_add_ps(_mm512_add_ps(c4, c5), _mm512_add_ps(c6, c7));
  __m512 s2 = _mm512_add_ps(_mm512_add_ps(c8, c9), _mm512_add_ps(c10, c11));
  __m512 s3 = _mm512_add_ps(_mm512_add_ps(c12, c13), _mm512_add_ps(c14, c15));
  __m512 s4 = _mm512_add_ps(_mm512_add_ps(c16, c17), _mm512_add_ps(c18, c19));
  __m512 s5 = _mm512_add_ps(_mm512_add_ps(c20, c21), _mm512_add_ps(c22, c23));
  __m512 sum =
      _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)), _mm512_add_ps(s4, s5));
  // Summed through memory: GCC 12's _mm512_reduce_add_ps warns of an uninitialised value in its
  // own header (-Wuninitialized, GCC PR 105593).
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float total = 0.0f;
  for (float v : lanes) total += v;
  return total;
}

#undef MICRO_DP_STEP

// The AMX tile configuration (palette 1): 16 rows x 64 bytes for every tile used.
struct alignas(64) TileConfig {
  uint8_t palette_id = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

__attribute__((target("amx-tile,amx-bf16"))) float DpLoopAmx(int64_t steps, const uint16_t* a, const uint16_t* b) {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, a, 64);
  _tile_loadd(5, a + 16 * 32, 64);
  _tile_loadd(6, b, 64);
  _tile_loadd(7, b + 16 * 32, 64);
  for (int64_t s = 0; s < steps; ++s) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  alignas(64) float out[4][16 * 16];
  _tile_stored(0, out[0], 64);
  _tile_stored(1, out[1], 64);
  _tile_stored(2, out[2], 64);
  _tile_stored(3, out[3], 64);
  _tile_release();
  float total = 0;
  for (const auto& tile : out) {
    for (float v : tile) total += v;
  }
  return total;
}

// Runtime operands the optimiser cannot see through.
volatile float g_bf16_a = 1e-3f;
volatile float g_bf16_b = 1e-3f;

uint16_t ToBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

long RealArchPrctl(int code, unsigned long arg) {
  const char* refuse = std::getenv(kRefuseAmxEnv);
  if (refuse != nullptr && std::strcmp(refuse, "1") == 0) return -EPERM;
  const long r = syscall(SYS_arch_prctl, code, arg);
  return r == 0 ? 0 : -errno;
}

// The real permission, asked for once per process (the kernel's answer does not change).
absl::Status AmxPermissionOnce() {
  static std::once_flag once;
  static absl::Status* status = nullptr;
  std::call_once(once, [] { status = new absl::Status(RequestAmxTileData()); });
  return *status;
}

absl::Status Usable(Bf16Isa isa) {
  if (!Bf16IsaSupported(isa)) {
    return absl::FailedPreconditionError(absl::StrCat("this CPU has no ", Bf16IsaName(isa)));
  }
  if (isa == Bf16Isa::kAmx) return AmxPermissionOnce();
  return absl::OkStatus();
}

int64_t MinBf16Steps(Bf16Isa isa) { return kMinFlopsPerThreadPerTrial / Bf16FlopsPerStep(isa); }

absl::StatusOr<int64_t> CalibrateBf16Steps(Bf16Isa isa, double seconds_per_trial, int threads) {
  absl::StatusOr<Bf16PeakResult> warm = RunBf16Loop(isa, 1, threads);
  if (!warm.ok()) return warm.status();
  int64_t steps = 1 << 10;
  while (true) {
    double fastest = 0;
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<Bf16PeakResult> r = RunBf16Loop(isa, steps, threads);
      if (!r.ok()) return r.status();
      if (i == 0 || r->seconds < fastest) fastest = r->seconds;
    }
    if (fastest >= 1e-3 || steps >= (int64_t{1} << 40)) {
      const double scaled = static_cast<double>(steps) * seconds_per_trial / fastest;
      return std::max<int64_t>({steps, static_cast<int64_t>(scaled), MinBf16Steps(isa)});
    }
    steps *= 4;
  }
}

}  // namespace

const char* Bf16IsaName(Bf16Isa isa) { return isa == Bf16Isa::kAmx ? "AMX-BF16" : "AVX512-BF16"; }
const char* Bf16IsaInstruction(Bf16Isa isa) { return isa == Bf16Isa::kAmx ? "TDPBF16PS" : "VDPBF16PS"; }
const char* Bf16IsaKey(Bf16Isa isa) { return isa == Bf16Isa::kAmx ? "amx_bf16" : "avx512_bf16"; }

bool Bf16IsaSupported(Bf16Isa isa) {
  __builtin_cpu_init();
  if (isa == Bf16Isa::kAmx) return __builtin_cpu_supports("amx-tile") && __builtin_cpu_supports("amx-bf16");
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
}

absl::Status RequestAmxTileData(const ArchPrctlFn& fn) {
  const long r = fn ? fn(kArchReqXcompPerm, kXfeatureXtiledata) : RealArchPrctl(kArchReqXcompPerm, kXfeatureXtiledata);
  if (r == 0) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the kernel refused AMX tile data: arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) failed with ",
      std::strerror(static_cast<int>(-r)),
      " (AMX needs Linux 5.16 or newer with AMX enabled, and a hypervisor that passes it through)"));
}

int64_t Bf16FlopsPerStep(Bf16Isa isa) {
  return isa == Bf16Isa::kAmx ? kAmxDotsPerStep * kAmxFlopsPerDot : int64_t{kAvx512Bf16Chains} * 16 * 2 * 2;
}

absl::StatusOr<Bf16PeakResult> RunBf16Loop(Bf16Isa isa, int64_t steps, int threads) {
  if (absl::Status u = Usable(isa); !u.ok()) return u;
  if (steps < 1) return absl::InvalidArgumentError(absl::StrCat("steps = ", steps, "; need >= 1"));
  if (threads < 0) {
    return absl::InvalidArgumentError(absl::StrCat("threads = ", threads, "; need >= 0 (0: all)"));
  }
  const int nthreads = threads == 0 ? omp_get_max_threads() : threads;
  const float a = g_bf16_a, b = g_bf16_b;
  // AMX operands: two 16 x 32 bf16 tiles of A and two of B, all a and b.
  alignas(64) uint16_t ta[2 * 16 * 32], tb[2 * 16 * 32];
  std::fill(std::begin(ta), std::end(ta), ToBf16(a));
  std::fill(std::begin(tb), std::end(tb), ToBf16(b));
  std::vector<float> sums(nthreads, 0.f);
  std::chrono::steady_clock::time_point start, stop;
#pragma omp parallel num_threads(nthreads)
  {
#pragma omp barrier
#pragma omp single
    start = std::chrono::steady_clock::now();
    const int t = omp_get_thread_num();
    sums[t] = isa == Bf16Isa::kAmx ? DpLoopAmx(steps, ta, tb) : DpLoopAvx512Bf16(steps, a, b);
#pragma omp barrier
#pragma omp single
    stop = std::chrono::steady_clock::now();
  }
  Bf16PeakResult r;
  r.isa = isa;
  r.threads = nthreads;
  r.seconds = std::chrono::duration<double>(stop - start).count();
  r.flops = static_cast<double>(Bf16FlopsPerStep(isa)) * static_cast<double>(steps) * nthreads;
  r.flops_per_s = r.seconds > 0 ? r.flops / r.seconds : 0;
  for (float s : sums) r.checksum += s;
  if (!std::isfinite(r.checksum) || !(r.checksum > 0)) {
    return absl::InternalError(absl::StrCat(Bf16IsaName(isa), " loop checksum is not finite and positive: ",
                                            r.checksum));
  }
  return r;
}

absl::StatusOr<Bf16PeakResult> MeasureBf16Peak(Bf16Isa isa, double seconds_per_trial, int trials, int threads) {
  if (!(seconds_per_trial > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("seconds_per_trial = ", seconds_per_trial, "; need > 0"));
  }
  if (trials < 1) return absl::InvalidArgumentError(absl::StrCat("trials = ", trials, "; need >= 1"));
  absl::StatusOr<int64_t> steps = CalibrateBf16Steps(isa, seconds_per_trial, threads);
  if (!steps.ok()) return steps.status();
  Bf16PeakResult best;
  for (int i = 0; i < trials; ++i) {
    absl::StatusOr<Bf16PeakResult> r = RunBf16Loop(isa, *steps, threads);
    if (!r.ok()) return r.status();
    if (r->flops_per_s > best.flops_per_s) best = *r;
  }
  return best;
}

std::string CpuBf16Peak::Describe(int trials) const {
  return absl::StrFormat("%s %s loop on %d threads (%s), best of %d", Bf16IsaName(best.isa),
                         Bf16IsaInstruction(best.isa), best.threads,
                         best.isa == Bf16Isa::kAmx ? "4 accumulator tiles" : "24 chains", trials);
}

absl::StatusOr<CpuBf16Peak> MeasureCpuBf16Peak(double seconds_per_trial, int trials, int threads) {
  CpuBf16Peak out;
  for (Bf16Isa isa : {Bf16Isa::kAvx512Bf16, Bf16Isa::kAmx}) {
    if (absl::Status u = Usable(isa); !u.ok()) {
      out.notes.push_back(std::string(u.message()));
      continue;
    }
    absl::StatusOr<Bf16PeakResult> r = MeasureBf16Peak(isa, seconds_per_trial, trials, threads);
    if (!r.ok()) return r.status();
    (isa == Bf16Isa::kAmx ? out.amx : out.avx512_bf16) = *r;
    if (r->flops_per_s > out.best.flops_per_s) out.best = *r;
  }
  if (!out.avx512_bf16 && !out.amx) {
    std::string why;
    for (const std::string& n : out.notes) absl::StrAppend(&why, why.empty() ? "" : "; ", n);
    return absl::FailedPreconditionError(absl::StrCat("no bf16 loop can run on this CPU: ", why));
  }
  return out;
}

std::string DescribeCpuBf16Units() {
  const bool avx = Bf16IsaSupported(Bf16Isa::kAvx512Bf16), amx = Bf16IsaSupported(Bf16Isa::kAmx);
  if (amx && avx) return "AMX-BF16 and AVX512-BF16";
  if (amx) return "AMX-BF16";
  if (avx) return "AVX512-BF16 (no AMX)";
  return "none";
}

}  // namespace micro
