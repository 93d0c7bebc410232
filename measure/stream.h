// STREAM-style memory bandwidth (McCalpin's STREAM): copy b = a and triad a = b + s * c over
// fp32 arrays each at least 4x the last-level cache, OpenMP static schedule, best of N trials;
// and on the same arrays, in the same trials, the other memory roofs (accounting/memory_roofs.h):
// read (a sum), write_nt (non-temporal stores) and in_place (AdamW's pattern). Each trial times
// the five kernels one after the other, so a slow moment lowers all five alike and the best
// trials come from the same quiet minutes.
//
// Bytes counted the STREAM way (accounting::ElementwiseBytes): copy moves 2 x 4 bytes per
// element (one read, one write), triad 3 x 4; the read-for-ownership of the written array is
// not counted, as in STREAM. Loops are plain stores, as STREAM is normally compiled (no
// non-temporal stores; see the -fno-tree-loop-distribute-patterns note in BUILD.bazel), so the
// figure is the same kind of traffic that the elementwise benchmarks generate.
#ifndef MEASURE_STREAM_H_
#define MEASURE_STREAM_H_

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "measure/memory_kernels.h"  // StreamCopy, StreamTriad

namespace micro {

struct StreamResult {
  int64_t elements = 0;          // per array
  double copy_bytes_per_s = 0;   // best trial
  double triad_bytes_per_s = 0;  // best trial
  int threads = 0;
  int trials = 0;
  // Every kind's best trial (counted bytes/s, copy and triad included) and its spread,
  // (best - median) / best over the trials: the DRAM roofs.
  std::map<std::string, double> roofs;
  std::map<std::string, double> spread;
  // "read 41.2 (spread 2%), write_nt 20.1 (3%), ..." in GB/s.
  std::string DescribeRoofs() const;
};

// The three arrays of a STREAM run and its trials so far, for a caller that runs the trials
// itself (//micro:ceilings' case, one trial an iteration).
class StreamArrays {
 public:
  struct FreeDeleter {
    void operator()(float* p) const { std::free(p); }
  };
  using Buffer = std::unique_ptr<float, FreeDeleter>;

  // Three arrays of bytes_per_array bytes (rounded down to whole floats), filled and warmed (one
  // untimed pass of every kernel). Errors: bytes_per_array < 4096, an allocation failed.
  static absl::StatusOr<std::unique_ptr<StreamArrays>> Create(int64_t bytes_per_array);
  // One trial: the five kernels once each, in kAllTrafficKinds' order, each timed.
  void Trial();
  // The copy copies (a sample checked); an error names the element.
  absl::Status CheckCopy();
  // The best trial and spread of each kind so far.
  StreamResult Result() const;
  int64_t elements() const { return n_; }

 private:
  explicit StreamArrays(int64_t n);
  TrafficArrays View() const;
  int64_t n_;
  Buffer a_, b_, c_;
  std::map<std::string, std::vector<double>> rates_;
  int trials_ = 0;
  double sink_ = 0;  // the read kernel's sums, so that it is not optimised away
};

// The read roof alone, measured again and again beside other work (gpt_decode probes it after each
// timed generation, so that each generation is held to the bandwidth of its own minutes: a shared
// VM's memory bandwidth moved 1.6x between minutes). One array, filled once.
class ReadRoofProbe {
 public:
  // One array of `bytes` bytes (rounded down to whole floats). Errors: bytes < 4096, no memory.
  static absl::StatusOr<std::unique_ptr<ReadRoofProbe>> Create(int64_t bytes);
  // The best of `trials` >= 1 passes of ReadSum, in counted bytes/s.
  double Measure(int trials);
  int64_t bytes() const { return n_ * 4; }

 private:
  explicit ReadRoofProbe(int64_t n) : n_(n) {}
  int64_t n_;
  StreamArrays::Buffer a_;
  double sink_ = 0;
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
