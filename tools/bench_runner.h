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
// The filter is passed to each binary unchanged, so Google Benchmark's semantics hold: a regex
// matched against the full case name, a leading '-' negating it.
#ifndef TOOLS_BENCH_RUNNER_H_
#define TOOLS_BENCH_RUNNER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "tools/bench_binaries.h"

namespace bench {

// Resolves a runfiles path ("micro/matmul") against RUNFILES_DIR, <argv0>.runfiles,
// TEST_SRCDIR and the working directory (in that order), each under "mlbench/"; a path that is
// already an executable file is returned as is. The error lists the places it looked.
absl::StatusOr<std::string> LocateBinary(const std::string& runfiles_path, const std::string& argv0);

// Case names `exe` would run with this filter (--benchmark_list_tests=true).
absl::StatusOr<std::vector<std::string>> ListCases(const std::string& exe, const std::string& filter);

// One binary, resolved, with the cases the filter selects in it.
struct Target {
  BenchBinary binary;
  std::string exe;
  std::string filter;
  std::vector<std::string> cases;
};

struct RunOptions {
  int repetitions = 1;  // rounds
  double min_time = 0;  // --benchmark_min_time in seconds; 0 keeps Google Benchmark's default
  // Called after each binary run, for progress lines: round (0-based), target, seconds taken.
  std::function<void(int, const Target&, double)> progress;
};

// Runs `exe` once with the filter and returns its JSON report ({"context", "benchmarks"}).
// Errors name the binary and, for bad JSON, the byte where parsing failed.
absl::StatusOr<nlohmann::json> RunOnce(const Target& target, double min_time);

// Runs every target in rounds and merges: {"context": <first binary's context>,
// "benchmarks": [...]} with the fields described above. Context "mlbench" is left to the caller.
absl::StatusOr<nlohmann::json> RunRounds(const std::vector<Target>& targets, const RunOptions& options);

}  // namespace bench

#endif  // TOOLS_BENCH_RUNNER_H_
