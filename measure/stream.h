// STREAM-style memory bandwidth (McCalpin's STREAM): copy b = a and triad a = b + s * c over
// fp32 arrays each at least 4x the last-level cache, OpenMP static schedule, best of N trials.
//
// Bytes counted the STREAM way (accounting::ElementwiseBytes): copy moves 2 x 4 bytes per
// element (one read, one write), triad 3 x 4; the read-for-ownership of the written array is
// not counted, as in STREAM. Loops are plain stores, as STREAM is normally compiled (no
// non-temporal stores; see the -fno-tree-loop-distribute-patterns note in BUILD.bazel), so the
// figure is the same kind of traffic that the elementwise benchmarks generate.
#ifndef MEASURE_STREAM_H_
#define MEASURE_STREAM_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "measure/memory_kernels.h"  // StreamCopy, StreamTriad

namespace micro {

struct StreamResult {
  int64_t elements = 0;          // per array
  double copy_bytes_per_s = 0;   // best trial
  double triad_bytes_per_s = 0;  // best trial
  int threads = 0;
  int trials = 0;
};

// Arrays of `bytes_per_array` bytes each (rounded down to whole floats). Error when
// bytes_per_array < 4096 or trials < 1, or when a copied value does not match its source.
absl::StatusOr<StreamResult> MeasureStream(int64_t bytes_per_array, int trials);

// The figures of this process's latest successful MeasureStream; nullopt when none ran. A run
// that measured STREAM at start-up (gpt_step's triad, gpt_decode's copy) compares them with this
// machine's record after its timed work (macro/rank_peak.h ProbeAgain) without carrying them
// there itself.
std::optional<StreamResult> LastMeasuredStream();

// Bytes per array for a STREAM run that respects the 4x-LLC rule: max(4 x llc_bytes, 64 MiB);
// llc_bytes <= 0 (unknown) gives 256 MiB.
int64_t StreamArrayBytes(int64_t llc_bytes);

}  // namespace micro

#endif  // MEASURE_STREAM_H_
