// tools/bench's engine: find each benchmark binary in the runfiles, list the cases a filter
// selects, run them in rounds and merge Google Benchmark's JSON into one file.
//
// Rounds, not in-process repetitions: with --repetitions=N every selected binary runs N times
// in turn (round 1: calibration, A, B; round 2: calibration, A, B; ...), each time with
// --benchmark_repetitions=1. A burst of load from another tenant of a shared machine then
// lands on one repetition of many cases instead of on every repetition of one case, which is
// what the Mann-Whitney test in tools/gate assumes (independent repetitions). Each merged entry
// carries repetition_index (the round), repetitions (N) and mlbench_binary (its label).
//
// Quiet rounds: a shared machine is often busy with other people's work (compiles, other
// benchmarks). Around each binary run bench reads /proc/stat and its children's CPU time
// (getrusage) and computes the foreign CPU fraction: the share of the machine's CPU time used
// by anything but the benchmark (steal time included). The contention is the part of it that
// the benchmark's idle cores could not absorb: foreign - idle_share, where idle_share is the
// share of CPUs the benchmark leaves free (a 1-thread run on 2 CPUs leaves 0.5). A run whose
// contention exceeds max_contention is discarded and retried after a pause, up to `retries`
// times; the least contended attempt is kept. Each entry records mlbench_foreign_cpu,
// mlbench_contention and mlbench_attempts; tools/gate warns when the machine was busy.
//
// The filter is passed to each binary unchanged, so Google Benchmark's semantics hold: a regex
// matched against the full case name, a leading '-' negating it.
#ifndef TOOLS_BENCH_BENCH_RUNNER_H_
#define TOOLS_BENCH_BENCH_RUNNER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tools/bench/bench_binaries.h"

namespace bench {

// Resolves a runfiles path ("micro/matmul") against RUNFILES_DIR, <argv0>.runfiles,
// TEST_SRCDIR and the working directory (in that order), each under "mlbench/"; a path that is
// already an executable file is returned as is. The error lists the places it looked.
absl::StatusOr<std::string> LocateBinary(const std::string& runfiles_path, const std::string& argv0);

// Case names `exe` would run with this filter (--benchmark_list_tests=true).
absl::StatusOr<std::vector<std::string>> ListCases(const std::string& exe, const std::string& filter);

// A/B runs (tools/bench --against): the current revision's binaries and the base revision's.
inline constexpr int kCurrentSide = 0;
inline constexpr int kBaseSide = 1;

// One binary, resolved, with the cases the filter selects in it.
struct Target {
  BenchBinary binary;
  std::string exe;
  std::string filter;
  std::vector<std::string> cases;
  int side = kCurrentSide;  // A/B runs: which revision's binary this is
};

struct RunOptions {
  int repetitions = 1;           // rounds
  double min_time = 0;           // --benchmark_min_time in seconds; 0 keeps Google Benchmark's default
  double max_contention = 0.15;  // retry a binary run when contention was higher
  double idle_share = 0;         // share of the CPUs the benchmarks leave idle
  int retries = 2;               // extra attempts per binary run and round
  // A/B: within each round run one side's targets, then the other's, the order flipping every
  // round (base first in even rounds), so a drift of the machine hits both sides alike.
  bool alternate_sides = false;
  double retry_wait_s = 2.0;  // pause before a retry
  // Called after each binary run, for progress lines: round (0-based), target, seconds taken,
  // foreign fraction and contention of the attempt kept, attempts made.
  std::function<void(int, const Target&, double, double, double, int)> progress;
};

// Machine-wide CPU time (seconds summed over CPUs) from /proc/stat, and this process's
// waited-for children's CPU time; the difference of two samples gives the foreign fraction.
struct CpuSample {
  double busy_s = 0;      // user + nice + system + irq + softirq + steal
  double total_s = 0;     // busy + idle + iowait
  double children_s = 0;  // getrusage(RUSAGE_CHILDREN) user + system
  bool valid = false;
};
CpuSample SampleCpu();
// Share of the machine's CPU time between a and b not used by our children, in [0, 1];
// 0 when /proc/stat was unreadable.
double ForeignCpuFraction(const CpuSample& a, const CpuSample& b);
// max(0, foreign - idle_share).
double Contention(double foreign, double idle_share);

// Runs `exe` once with the filter and returns its JSON report ({"context", "benchmarks"}).
// Errors name the binary and, for bad JSON, the byte where parsing failed.
absl::StatusOr<nlohmann::json> RunOnce(const Target& target, double min_time);

// The targets in the order round `round` runs them: as given, or with alternate_sides the
// base side first in even rounds and the current side first in odd ones (each side's targets
// in their given order).
std::vector<Target> RoundOrder(const std::vector<Target>& targets, int round, bool alternate_sides);

// Runs every target in rounds and merges: {"context": <first binary's context>,
// "benchmarks": [...]} with the fields described above. Context "mlbench" is left to the caller.
// With base-side targets, their entries carry "mlbench_side": "base" (the others "current"),
// their binaries' context goes to "base_context", and every child runs with
// MLBENCH_AB_SIDE=base or current in its environment.
absl::StatusOr<nlohmann::json> RunRounds(const std::vector<Target>& targets, const RunOptions& options);

}  // namespace bench

#endif  // TOOLS_BENCH_BENCH_RUNNER_H_
