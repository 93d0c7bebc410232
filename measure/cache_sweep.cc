// The working-set sweep behind the cache levels' roofs (cache_sweep.h).
#include "measure/cache_sweep.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/cache_levels.h"
#include "measure/memory_kernels.h"
#include "measure/random_fill.h"
#include "sysinfo/cpu_info.h"
#include "sysinfo/huge_pages.h"

namespace micro {
namespace {

using accounting::TrafficKind;

constexpr int64_t kKiB = 1024, kMiB = 1024 * kKiB, kGiB = 1024 * kMiB;
// 64-byte lines of 16 floats, for 1, 2 or 3 arrays: lcm(64, 128, 192).
constexpr int64_t kSizeGrain = 384;
constexpr int64_t kMaxSweepBytes = 64 * kGiB;

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float, FreeDeleter>;

// Bytes per element the kind's kernel touches: its arrays' footprint (memory_kernels.h).
int64_t TouchedBytesPerElement(TrafficKind kind) {
  switch (kind) {
    case TrafficKind::kRead:
    case TrafficKind::kWriteNt: return 4;
    case TrafficKind::kCopy: return 8;
    case TrafficKind::kTriad:
    case TrafficKind::kInPlace: return 12;
  }
  return 12;
}

// The kind's arrays spanning `bytes` of the buffer, end to end from its start.
TrafficArrays ArraysFor(TrafficKind kind, float* buffer, int64_t bytes) {
  TrafficArrays x;
  x.n = bytes / TouchedBytesPerElement(kind);
  x.a = buffer;
  x.b = buffer + x.n;
  x.c = buffer + 2 * x.n;
  return x;
}

// Seconds of `reps` timed repetitions after one untimed one; adds the kernels' returns to *sum.
double TimeRepetitions(TrafficKind kind, const TrafficArrays& x, int64_t reps, double* sum) {
  *sum += RepeatTrafficKernel(kind, x, 1);
  const auto t0 = std::chrono::steady_clock::now();
  *sum += RepeatTrafficKernel(kind, x, reps);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// What one pass costs with no data (the loop's own overhead inside a region; the region's fork and
// join is paid once a trial): the best of 5 batches of 200 empty reads.
double CallSeconds(float* buffer) {
  TrafficArrays empty{buffer, buffer, buffer, 0};
  double sum = 0, best = 1e9;
  for (int batch = 0; batch < 5; ++batch) {
    best = std::min(best, TimeRepetitions(TrafficKind::kRead, empty, 200, &sum) / 200);
  }
  return best;
}

// Repetitions that take about `seconds`: doubled until a quarter of it is reached, then scaled.
int64_t CalibrateRepetitions(TrafficKind kind, const TrafficArrays& x, double seconds, double* sum) {
  constexpr int64_t kMaxReps = int64_t{1} << 30;
  for (int64_t reps = 1;; reps *= 2) {
    const double t = TimeRepetitions(kind, x, reps, sum);
    if (t >= seconds / 4 || reps >= kMaxReps) {
      const double scaled = std::ceil(static_cast<double>(reps) * seconds / std::max(t, 1e-9));
      return std::clamp<int64_t>(static_cast<int64_t>(std::min(scaled, 1e18)), 1, kMaxReps);
    }
  }
}

absl::Status CheckOptions(const CacheSweepOptions& o, int64_t max_bytes) {
  if (o.min_bytes < 4096) {
    return absl::InvalidArgumentError(absl::StrCat("min_bytes = ", o.min_bytes, "; need >= 4096"));
  }
  if (o.max_bytes < 0 || o.max_bytes > kMaxSweepBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_bytes = ", o.max_bytes, "; need 0 (the default) or a size up to ", kMaxSweepBytes));
  }
  if (o.min_bytes > max_bytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("min_bytes = ", o.min_bytes, " is above max_bytes = ", max_bytes, "; need min <= max"));
  }
  if (o.points_per_octave < 1 || o.points_per_octave > 16) {
    return absl::InvalidArgumentError(
        absl::StrCat("points_per_octave = ", o.points_per_octave, "; need 1 to 16"));
  }
  if (o.trials < 1) return absl::InvalidArgumentError(absl::StrCat("trials = ", o.trials, "; need >= 1"));
  if (!(o.seconds_per_trial > 0 && o.seconds_per_trial <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("seconds_per_trial = ", o.seconds_per_trial, "; need a number in (0, 1]"));
  }
  const size_t sizes = SweepWorkingSets(o.min_bytes, max_bytes, o.points_per_octave).size();
  if (sizes < 3) {
    return absl::InvalidArgumentError(absl::StrCat("min_bytes = ", o.min_bytes, " to max_bytes = ", max_bytes,
                                                   " at points_per_octave = ", o.points_per_octave, " gives ",
                                                   sizes, " working sets; need at least 3 to find levels"));
  }
  return absl::OkStatus();
}

// Every kind at one working set: calibrated, then `trials` interleaved; the best rate per kind
// appended to r->bytes_per_s.
absl::Status SweepOneSize(float* buffer, int64_t bytes, const CacheSweepOptions& o, CacheSweepResult* r) {
  constexpr size_t kKinds = std::size(accounting::kAllTrafficKinds);
  TrafficArrays arrays[kKinds];
  int64_t reps[kKinds];
  double best[kKinds] = {};
  double sum = 0;
  for (size_t k = 0; k < kKinds; ++k) {
    arrays[k] = ArraysFor(accounting::kAllTrafficKinds[k], buffer, bytes);
    reps[k] = CalibrateRepetitions(accounting::kAllTrafficKinds[k], arrays[k], o.seconds_per_trial, &sum);
  }
  for (int t = 0; t < o.trials; ++t) {
    for (size_t k = 0; k < kKinds; ++k) {
      const TrafficKind kind = accounting::kAllTrafficKinds[k];
      const double seconds = TimeRepetitions(kind, arrays[k], reps[k], &sum);
      const double rate = TrafficKernelBytes(kind, arrays[k].n) * static_cast<double>(reps[k]) / seconds;
      if (std::isfinite(rate)) best[k] = std::max(best[k], rate);
    }
  }
  // The sums keep the reads from being optimised away; a non-finite one means garbage data.
  static volatile double sink = 0;
  sink = sink + sum;
  if (!std::isfinite(sum)) {
    return absl::InternalError(absl::StrCat("the kernels' sums at working set ", bytes, " bytes are ", sum,
                                            "; the arrays' values are bounded, so a finite sum is expected"));
  }
  for (size_t k = 0; k < kKinds; ++k) {
    r->bytes_per_s[std::string(accounting::TrafficKindName(accounting::kAllTrafficKinds[k]))].push_back(
        best[k]);
  }
  return absl::OkStatus();
}

// "L1", "L2", "L3", "level 4", ...
std::string LevelName(size_t index) {
  return index < 3 ? absl::StrCat("L", index + 1) : absl::StrCat("level ", index + 1);
}

// The levels from the read curve's plateaus, all but the last (DRAM); each kind's figure is its
// best sustained rate within the level's span.
absl::StatusOr<std::vector<accounting::LevelSpan>> FindLevels(CacheSweepResult* r) {
  const std::vector<double>& read = r->bytes_per_s.at("read");
  std::vector<accounting::SweepPoint> curve;
  for (size_t i = 0; i < read.size(); ++i)
    curve.push_back({static_cast<double>(r->working_set_bytes[i]), read[i]});
  absl::StatusOr<std::vector<accounting::LevelSpan>> spans = accounting::FindCacheLevels(curve);
  if (!spans.ok()) return spans.status();
  for (size_t l = 0; l + 1 < spans->size(); ++l) {
    const accounting::LevelSpan& s = (*spans)[l];
    accounting::CacheLevel level;
    level.name = LevelName(l);
    level.capacity_bytes = s.capacity_bytes;
    for (const auto& [kind, rates] : r->bytes_per_s)
      level.bytes_per_s[kind] = accounting::SustainedBest(rates, s.first, s.last);
    r->levels.push_back(level);
  }
  return spans;
}

std::string Bytes(double b) {
  if (b >= kGiB) return absl::StrFormat("%.3g GiB", b / kGiB);
  if (b >= kMiB) return absl::StrFormat("%.3g MiB", b / kMiB);
  return absl::StrFormat("%.3g KiB", b / kKiB);
}

// Where the read curve first reaches 90% of its first plateau's rate, when that is after its
// first point: below it the kernels' per-call cost, not a cache, sets the rate.
std::string RiseNote(const CacheSweepResult& r, const accounting::LevelSpan& first, double call_seconds) {
  const std::vector<double>& read = r.bytes_per_s.at("read");
  size_t reach = 0;
  while (reach < first.last && read[reach] < 0.9 * first.bytes_per_s) ++reach;
  if (reach == 0) return "";
  return absl::StrFormat(
      "; read reaches 90%% of its first plateau only at %s: each pass costs %.2f us with no data, so below "
      "that the overhead sets the rate and smaller levels are not resolved (the first level found may not "
      "be L1)",
      Bytes(r.working_set_bytes[reach]), call_seconds * 1e6);
}

std::string Method(const CacheSweepOptions& o, const CacheSweepResult& r, const accounting::LevelSpan& first,
                   double call_seconds, int64_t llc_bytes) {
  std::string m = absl::StrFormat(
      "read, write_nt, copy, triad, in_place at %d working sets %s-%s (%d a doubling; each kind's arrays "
      "span the working set), best of %d interleaved trials of ~%.3g ms, %d threads; %d level%s from the "
      "read curve's plateaus (a fall > %.0f%% over 2 points), named in the order found",
      r.working_set_bytes.size(), Bytes(r.working_set_bytes.front()), Bytes(r.working_set_bytes.back()),
      o.points_per_octave, o.trials, o.seconds_per_trial * 1e3, omp_get_max_threads(), r.levels.size(),
      r.levels.size() == 1 ? "" : "s", accounting::kCacheLevelDrop * 100);
  absl::StrAppend(&m, RiseNote(r, first, call_seconds));
  if (llc_bytes <= 0) {
    absl::StrAppend(&m, "; the OS reports no LLC size: the last plateau may not be DRAM");
  } else if (r.working_set_bytes.back() + kSizeGrain / 2 < 4 * llc_bytes) {  // not just rounded down
    absl::StrAppend(&m, "; the largest working set is below 4x the OS's LLC (", Bytes(llc_bytes),
                    "): the last plateau may not be DRAM");
  }
  return m;
}

}  // namespace

int64_t DefaultSweepMaxBytes(int64_t llc_bytes) {
  if (llc_bytes <= 0) return 256 * kMiB;
  return std::clamp<int64_t>(4 * llc_bytes, 64 * kMiB, 512 * kMiB);
}

std::vector<int64_t> SweepWorkingSets(int64_t min_bytes, int64_t max_bytes, int points_per_octave) {
  std::vector<int64_t> sizes;
  if (min_bytes <= 0 || points_per_octave < 1) return sizes;
  for (int i = 0;; ++i) {
    const double w = static_cast<double>(min_bytes) * std::exp2(static_cast<double>(i) / points_per_octave);
    if (w > static_cast<double>(max_bytes) * (1 + 1e-12)) break;
    const int64_t rounded = std::max<int64_t>(kSizeGrain, std::llround(w / kSizeGrain) * kSizeGrain);
    if (sizes.empty() || rounded > sizes.back()) sizes.push_back(rounded);
  }
  return sizes;
}

absl::StatusOr<CacheSweepResult> MeasureCacheSweep(const CacheSweepOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const int64_t llc_bytes = sysinfo::ReadCpuInfo().l3_bytes;
  const int64_t max_bytes = options.max_bytes == 0 ? DefaultSweepMaxBytes(llc_bytes) : options.max_bytes;
  if (absl::Status s = CheckOptions(options, max_bytes); !s.ok()) return s;
  CacheSweepResult r;
  r.working_set_bytes = SweepWorkingSets(options.min_bytes, max_bytes, options.points_per_octave);
  const int64_t floats = r.working_set_bytes.back() / 4;
  Buffer buffer(static_cast<float*>(sysinfo::AllocateLarge(static_cast<size_t>(floats) * sizeof(float))));
  if (!buffer) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate the sweep's buffer of ", r.working_set_bytes.back(), " bytes"));
  }
  FillUniform(buffer.get(), floats, 1);
  const double call_seconds = CallSeconds(buffer.get());
  for (int64_t bytes : r.working_set_bytes) {
    if (absl::Status s = SweepOneSize(buffer.get(), bytes, options, &r); !s.ok()) return s;
  }
  absl::StatusOr<std::vector<accounting::LevelSpan>> spans = FindLevels(&r);
  if (!spans.ok()) return spans.status();
  r.method = Method(options, r, spans->front(), call_seconds, llc_bytes);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace micro
