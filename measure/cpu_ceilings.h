// The CPU's measured ceilings in one call: the best fp32 FMA rate over the ISAs this CPU runs
// (fma_peak.h) and the STREAM copy bandwidth (stream.h), packed as accounting::Ceilings.
// matmul and elementwise call it at start-up when no --ceilings file is given (a quick
// measurement, well under a second); //micro:ceilings measures the same things at length.
#ifndef MEASURE_CPU_CEILINGS_H_
#define MEASURE_CPU_CEILINGS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "accounting/ceilings.h"
#include "accounting/peaks.h"
#include "accounting/dtype.h"
#include "measure/bf16_peak.h"
#include "measure/fma_peak.h"
#include "measure/stream.h"

namespace micro {

// The start-up measurement's STREAM arrays: at most 256 MiB each (3 arrays). A VM may report its
// host's whole L3 (480 MiB seen), and 4x that took 20-50 s a probe at one thread. Under 4x the
// cache the figure is labelled cache-resident (bandwidth_cache_resident, and in the method); cache
// hits can only raise it, so a bound drawn from it is stricter, never flattering.
inline constexpr int64_t kStartupStreamMaxBytes = int64_t{256} << 20;
// Trials of a start-up STREAM run (every kind of traffic in each, measure/stream.h): the best of
// 6 interleaved trials, about 0.5 s on 128 MiB arrays at 30 GB/s.
inline constexpr int kStartupStreamTrials = 6;

struct CpuCeilingOptions {
  // Many short trials, best taken: on a shared machine the best of many is a steadier
  // estimate of the ceiling than a few long ones.
  double fma_seconds_per_trial = 0.01;
  int fma_trials = 10;
  int64_t stream_bytes_per_array = 0;  // 0: StreamArrayBytes(the machine's LLC), at most kStartupStreamMaxBytes
  int stream_trials = kStartupStreamTrials;
};

struct CpuCeilingsResult {
  accounting::Ceilings ceilings;      // peak_flops["fp32"], bandwidth = STREAM copy
  std::optional<FmaPeakResult> avx2;  // absent when the CPU lacks the ISA
  std::optional<FmaPeakResult> avx512;
  StreamResult stream;
};

// "AVX-512 FMA loop, 2 threads, 24 chains; STREAM copy 128 MiB x 2 arrays, best of 4": what
// was measured and how, for Ceilings::method.
std::string DescribeCpuMethod(const CpuCeilingsResult& r);

// Packs measured pieces into Ceilings (machine = CPU model, date = now). The fp32 peak is the
// faster ISA; at least one FMA result is required.
absl::StatusOr<accounting::Ceilings> PackCpuCeilings(const std::optional<FmaPeakResult>& avx2,
                                                     const std::optional<FmaPeakResult>& avx512,
                                                     const StreamResult& stream, const std::string& method);

absl::StatusOr<CpuCeilingsResult> MeasureCpuCeilings(const CpuCeilingOptions& options = {});

// The fp32 FMA peak alone, measured as MeasureCpuCeilings measures it (every ISA this CPU runs,
// the faster kept), without STREAM: the second probe of a run's peak after its timed work
// (accounting/disturbed.h), about 0.1-0.3 s.
absl::StatusOr<FmaPeakResult> MeasureCpuFmaPeak(const CpuCeilingOptions& options = {});

// The fp32 peak FLOP/s and bandwidth a CPU benchmark divides by. With a path: that
// measured-ceilings file (source "measured: <path> ..."), which must describe this CPU (its
// `machine` equals the CPU model; a GPU's file is an error). Without: MeasureCpuCeilings()
// now, source "measured at start-up: <ISA> FMA loop ..., STREAM copy ...".
absl::StatusOr<accounting::Peak> ResolveCpuPeak(const std::string& ceilings_path);

// The number of threads the FMA figure of a method text from DescribeCpuMethod was measured
// with ("FMA loop on 2 threads (...)" -> 2); 0 when the text does not say (an older or
// hand-written file).
int CpuMethodThreads(const std::string& method);

// ResolveCpuPeak, and the threads its FMA figure was measured with: the start-up measurement's
// own count (omp_get_max_threads() when it ran), or CpuMethodThreads of the file's method
// (0: the file does not say). A caller whose work runs on fewer threads than that scales it.
//
// dtype bf16: the file's peak_flops["bf16"] (an error naming how to measure it when the file has
// none), or now the faster of the bf16 loops this CPU runs (bf16_peak.h; an error when it has
// none); the bandwidth is STREAM's as for fp32. Any other dtype than fp32 and bf16 is an error.
struct ResolvedCpuPeak {
  accounting::Peak peak;
  bool from_file = false;
  int fma_threads = 0;
};
// with_bandwidth = false (a measurement now only): the FMA or bf16 loop alone, bytes_per_s 0, no
// STREAM run (the train steps do not divide by a bandwidth; on a VM that reports its host's
// 480 MiB L3, STREAM's 4x-cache arrays cost seconds to tens of seconds a probe).
absl::StatusOr<ResolvedCpuPeak> ResolveCpuPeakWithThreads(const std::string& ceilings_path,
                                                          accounting::Dtype dtype = accounting::Dtype::kFp32,
                                                          bool with_bandwidth = true);

// The bf16 peak alone, measured now as ResolveCpuPeakWithThreads measures it (the second probe of
// a bf16 run's peak after its timed work).
absl::StatusOr<Bf16PeakResult> MeasureCpuBf16PeakNow(const CpuCeilingOptions& options = {});

}  // namespace micro

#endif  // MEASURE_CPU_CEILINGS_H_
