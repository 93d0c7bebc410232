// The L1, L2 and L3 bandwidths: a sweep over working-set sizes in the manner of the Empirical
// Roofline Toolkit (Lo et al., "Roofline model toolkit", PMBS 2014), with the knees found from
// the data (accounting/cache_levels.h), not from the cache sizes the OS reports.
//
// For each working set W, geometric from min_bytes to max_bytes, points_per_octave a doubling,
// each of the five kernels of measure/memory_kernels.h runs over arrays that together span W:
// W is the bytes the kernel touches, so n = W / 4 floats for read and write_nt (array a), W / 8
// for copy (a, b), W / 12 for triad and in_place (a, b, c). Each kind's curve is then against
// its own footprint, which is what an op's OpTraffic::working_set_bytes is compared with
// (accounting::RoofForTraffic). W is rounded to a multiple of 384 bytes, so that every kind's n
// is a whole number of 64-byte lines per array (write_nt's stores need that alignment). One
// buffer of the largest W is allocated once, on huge pages where it is large enough
// (sysinfo/huge_pages.h), first touched in parallel (FillUniform); a kind's arrays lie end to end
// from its start, so at each W all five kinds touch the same bytes.
//
// At each W a kind's repetitions are calibrated once to take about seconds_per_trial; the trials
// are interleaved across the kinds (for each trial, for each kind: one untimed repetition, which
// brings the kind's arrays back into the caches the way its loop splits them over the threads,
// then the timed repetitions, steady_clock), and the best trial is kept per kind and size: counted
// bytes (micro::TrafficKernelBytes) x repetitions / seconds.
//
// A trial's repetitions run inside one OpenMP parallel region (micro::RepeatTrafficKernel): each
// thread repeats the kernel over its own static slice with no barrier between passes, as the
// Empirical Roofline Toolkit does, so the private levels of T threads hold T x the per-core size
// between them and a region's fork and join (0.7 us on the 2-core Zen 3 VM, more than an L1-sized
// pass) is paid once a trial, not once a pass. The method line still says where read reaches its
// first plateau and what a call costs with no data.
//
// The levels come from the read curve (loads only: no write-allocate or write-back to blur the
// knees), named in the order found; each level's figure per kind is that kind's best rate
// sustained over two consecutive points within the level's span (accounting::SustainedBest).
// The read kernel sums 8 line-aligned streams as a tree (one dependent add per 8 vector loads), so
// it is not bound by the add's latency in L1. write_nt bypasses the caches, so its figures at every
// level are about its memory rate. On a VM the last-level cache is shared with other guests: its
// plateau and knee move from run to run (the levels found on a 2-core Zen 3 VM varied between
// runs), so a level's figures are this run's.
#ifndef MEASURE_CACHE_SWEEP_H_
#define MEASURE_CACHE_SWEEP_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "accounting/memory_roofs.h"

namespace micro {

struct CacheSweepOptions {
  int64_t min_bytes = int64_t{16} << 10;  // the smallest working set, >= 4096
  int64_t max_bytes = 0;                  // the largest; 0: DefaultSweepMaxBytes of the OS's LLC
  int points_per_octave = 2;              // 1 to 16
  int trials = 5;                         // >= 1, interleaved across the kinds
  double seconds_per_trial = 0.004;       // (0, 1]
};

struct CacheSweepResult {
  std::vector<int64_t> working_set_bytes;                  // the sizes swept, strictly increasing
  std::map<std::string, std::vector<double>> bytes_per_s;  // by kind name: the best trial per size
  std::vector<accounting::CacheLevel> levels;              // smallest first, without the DRAM plateau
  std::string method;                                      // one line: what was done
  double seconds = 0;                                      // the sweep's wall time
};

// Sweeps every kind of accounting::kAllTrafficKinds. Errors: min_bytes < 4096, max_bytes < 0 or
// above 64 GiB, min_bytes > max_bytes, fewer than 3 sizes between them, points_per_octave outside
// 1-16, trials < 1, seconds_per_trial outside (0, 1]; the buffer cannot be allocated; a kernel
// returns a non-finite sum.
absl::StatusOr<CacheSweepResult> MeasureCacheSweep(const CacheSweepOptions& options);

// max(4 x llc_bytes, 64 MiB), at most 512 MiB; llc_bytes <= 0 (unknown) gives 256 MiB.
int64_t DefaultSweepMaxBytes(int64_t llc_bytes);

// The working sets of a sweep: min_bytes x 2^(i / points_per_octave) up to max_bytes, each
// rounded to the nearest multiple of 384 bytes (at least 384), duplicates dropped.
std::vector<int64_t> SweepWorkingSets(int64_t min_bytes, int64_t max_bytes, int points_per_octave);

}  // namespace micro

#endif  // MEASURE_CACHE_SWEEP_H_
