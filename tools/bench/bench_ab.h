// Same-machine A/B for tools/bench --against=REV: the benchmark binaries of another revision,
// built from a git worktree of this checkout, to run in alternating rounds with the current
// ones (bench_runner.h) and compare round by round (tools/gate --against, paired).
//
// The worktree lives in a cache folder keyed by the revision's SHA (default
// $XDG_CACHE_HOME/mlbench/ab/<sha>, else ~/.cache/mlbench/ab/<sha>; harness/cache_dir.h: never
// a shared folder such as /tmp), so a second A/B against the same revision reuses its build.
// The cache folder is created with mode 0700; it and the worktree are built in only when they
// are ours (this uid's, not writable by group or others).
// Its Bazel output base is its own (Bazel keys output bases by workspace folder); the build
// shares the disk cache of .bazelrc, so files unchanged between the revisions are not compiled
// twice. What is built is the old revision's //tools:bench, whose runfiles hold that
// revision's benchmark binaries and calibration binary.
#ifndef TOOLS_BENCH_BENCH_AB_H_
#define TOOLS_BENCH_BENCH_AB_H_

#include <string>

#include "absl/status/statusor.h"
#include "tools/bench/bench_binaries.h"

namespace bench {

struct BaseRevision {
  std::string rev;            // as the user gave it ("HEAD~1")
  std::string sha;            // full commit
  std::string worktree;       // the checkout it was built in
  std::string runfiles_root;  // <worktree>/bazel-bin/tools/bench/bench.runfiles (resolved)
  double build_seconds = 0;
};

// "$XDG_CACHE_HOME/mlbench/ab", else "$HOME/.cache/mlbench/ab"; an error saying why when neither
// is set to an absolute path (harness::CacheRoot).
absl::StatusOr<std::string> DefaultAbCacheDir();

// The Bazel disk cache the base revision's build shares: "<cache root>/bazel-disk-cache",
// created private (harness::MakeOwnPrivateDir); an error when it cannot be.
absl::StatusOr<std::string> DefaultAbDiskCache();

// Resolves `rev` in `workspace` (a git checkout), checks it out as a detached worktree under
// `cache_dir` (created with mode 0700; refused unless ours, as is an existing worktree: exit 2
// naming the folder, its owner and mode), reusing one already there, and builds its //tools:bench with `bazel build -c opt`
// (plus `bazel_args`). Progress goes to stderr. Errors name the step that failed and its output.
absl::StatusOr<BaseRevision> PrepareBaseRevision(const std::string& workspace, const std::string& rev,
                                                 const std::string& cache_dir, const std::string& bazel_args);

// The path of a binary in the base revision's runfiles: its runfiles path, else its path before
// the package layout of 2026-11-30, else, for a binary given as a file path, the file of that
// name at the runfiles root; NotFound when the base did not have it.
absl::StatusOr<std::string> LocateBaseBinary(const BaseRevision& base, const BenchBinary& binary);

}  // namespace bench

#endif  // TOOLS_BENCH_BENCH_AB_H_
