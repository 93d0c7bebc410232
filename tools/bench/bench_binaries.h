// The benchmark binaries tools/bench knows. The list has one home: BENCH_BINARIES in
// tools/bench/BUILD.bazel, which makes them data dependencies of //tools:bench and generates
// bench_generated.inc from the same list, so adding a binary (e.g. "//macro:gpt_step") is one
// line there. The calibration binary (//tools/bench:bench_calibration) is kept apart: bench runs it
// in every round whatever the filter (see bench_calibration.cc).
#ifndef TOOLS_BENCH_BENCH_BINARIES_H_
#define TOOLS_BENCH_BENCH_BINARIES_H_

#include <string>
#include <vector>

namespace bench {

struct BenchBinary {
  std::string label;          // "//micro:matmul", the label users run
  std::string runfiles_path;  // "micro/matmul/matmul", under <runfiles>/mlbench/
  // Where revisions before the package layout of 2026-11-30 kept it ("micro/matmul"): an A/B
  // run against such a revision looks there when runfiles_path is missing.
  std::string legacy_runfiles_path;
};

const std::vector<BenchBinary>& KnownBinaries();
BenchBinary CalibrationBinary();

// The quick CPU suite CI gates on: a regex over case names (a few cases, a couple of minutes
// at most with 9 rounds on a 2-core machine). Used by `bench --quick` without --filter.
const char* QuickFilter();

// Bazel's compilation mode of this build: "opt", "dbg" or "fastbuild".
const char* CompilationMode();

}  // namespace bench

#endif  // TOOLS_BENCH_BENCH_BINARIES_H_
