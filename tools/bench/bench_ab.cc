// Building another revision's benchmark binaries in a git worktree; see bench_ab.h.
#include "tools/bench/bench_ab.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "harness/cache_dir.h"
#include "harness/subprocess.h"
#include "tools/gate/gate_io.h"

namespace bench {
namespace {

// Runs a command, stdout captured, stderr to ours; fails naming `what` on a non-zero exit.
absl::StatusOr<std::string> Run(const std::vector<std::string>& argv, const std::string& what) {
  absl::StatusOr<harness::ProcessResult> r = harness::RunProcess(argv, /*capture_stderr=*/true);
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) {
    return absl::FailedPreconditionError(absl::StrCat(what, " failed (exit ", r->exit_code, "):\n",
                                                      harness::Tail(r->stdout_text + r->stderr_text, 3000)));
  }
  return std::string(absl::StripAsciiWhitespace(r->stdout_text));
}

bool IsDir(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

absl::StatusOr<std::string> DefaultAbCacheDir() {
  absl::StatusOr<std::string> root = harness::CacheRoot();
  if (!root.ok()) return root.status();
  return absl::StrCat(*root, "/ab");
}

absl::StatusOr<std::string> DefaultAbDiskCache() {
  absl::StatusOr<std::string> root = harness::CacheRoot();
  if (!root.ok()) return root.status();
  const std::string dir = absl::StrCat(*root, "/bazel-disk-cache");
  if (absl::Status s = harness::MakeOwnPrivateDir(dir); !s.ok()) return s;
  return dir;
}

absl::StatusOr<BaseRevision> PrepareBaseRevision(const std::string& workspace, const std::string& rev,
                                                 const std::string& cache_dir,
                                                 const std::string& bazel_args) {
  BaseRevision base;
  base.rev = rev;
  if (workspace.empty()) {
    return absl::FailedPreconditionError(
        "--against needs the git checkout: run bench with `bazel run` (BUILD_WORKSPACE_DIRECTORY) or set "
        "BUILD_WORKSPACE_DIRECTORY");
  }
  absl::StatusOr<std::string> sha =
      Run({"git", "-C", workspace, "rev-parse", "--verify", "--quiet", absl::StrCat(rev, "^{commit}")},
          absl::StrCat("resolving --against=", rev));
  if (!sha.ok() || sha->empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--against=", rev, " is not a commit of ", workspace,
                                                   " (a shallow clone may lack the parent)"));
  }
  base.sha = *sha;
  // Ours before anything is checked out or built in it (harness/cache_dir.h).
  if (absl::Status s = harness::MakeOwnPrivateDir(cache_dir); !s.ok()) return s;
  base.worktree = absl::StrCat(cache_dir, "/", base.sha);
  // An existing worktree is ours too before git runs in it (a planted .git/config could run code).
  if (IsDir(base.worktree)) {
    if (absl::Status s = harness::CheckOwnPrivateDir(base.worktree); !s.ok()) return s;
  }
  absl::StatusOr<std::string> head =
      IsDir(base.worktree) ? Run({"git", "-C", base.worktree, "rev-parse", "HEAD"}, "reading the worktree")
                           : absl::StatusOr<std::string>(absl::NotFoundError("none"));
  if (!head.ok() || *head != base.sha) {
    // A stale or broken folder of that name: remove it and let git forget it.
    Run({"rm", "-rf", base.worktree}, "removing a stale worktree").IgnoreError();
    Run({"git", "-C", workspace, "worktree", "prune"}, "git worktree prune").IgnoreError();
    std::fprintf(stderr, "bench: checking out %s (%s) in %s\n", rev.c_str(), base.sha.substr(0, 12).c_str(),
                 base.worktree.c_str());
    absl::StatusOr<std::string> add =
        Run({"git", "-C", workspace, "worktree", "add", "--detach", "--force", base.worktree, base.sha},
            "git worktree add");
    if (!add.ok()) return add.status();
  }
  if (absl::Status s = harness::CheckOwnPrivateDir(base.worktree); !s.ok()) return s;
  std::fprintf(stderr, "bench: building %s's benchmark binaries (bazel build -c opt //tools:bench in %s)\n",
               rev.c_str(), base.worktree.c_str());
  auto start = std::chrono::steady_clock::now();
  // Through the shell for `cd`; every argument quoted. Bazel's progress goes to our stderr;
  // its server for that worktree exits after two idle minutes.
  std::string cmd =
      absl::StrCat("cd ", gate::ShellQuote(base.worktree), " && exec bazel --max_idle_secs=120 build -c opt ",
                   bazel_args, " //tools:bench 1>&2");
  absl::StatusOr<harness::ProcessResult> built =
      harness::RunProcess({"/bin/sh", "-c", cmd}, /*capture_stderr=*/false);
  if (!built.ok()) return built.status();
  if (built->exit_code != 0) {
    return absl::FailedPreconditionError(absl::StrCat("building ", rev, " (", base.sha.substr(0, 12),
                                                      ") failed (exit ", built->exit_code,
                                                      "); see the output above"));
  }
  base.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // //tools:bench is an alias of //tools/bench:bench since the package layout of 2026-11-30.
  std::string runfiles = absl::StrCat(base.worktree, "/bazel-bin/tools/bench/bench.runfiles");
  if (!IsDir(runfiles)) runfiles = absl::StrCat(base.worktree, "/bazel-bin/tools/bench.runfiles");
  char* real = realpath(runfiles.c_str(), nullptr);
  if (real == nullptr) {
    return absl::NotFoundError(absl::StrCat(runfiles, " does not exist after the build"));
  }
  base.runfiles_root = real;
  free(real);
  return base;
}

absl::StatusOr<std::string> LocateBaseBinary(const BaseRevision& base, const BenchBinary& binary) {
  const std::string& runfiles_path = binary.runfiles_path;
  std::string p = absl::StrCat(base.runfiles_root, "/mlbench/", runfiles_path);
  if (access(p.c_str(), X_OK) != 0 && !binary.legacy_runfiles_path.empty()) {
    p = absl::StrCat(base.runfiles_root, "/mlbench/", binary.legacy_runfiles_path);
  }
  if (access(p.c_str(), X_OK) != 0) {
    // A binary given as a file (--binaries=/path/x): the base folder's file of that name.
    const size_t slash = runfiles_path.rfind('/');
    p = absl::StrCat(base.runfiles_root, "/",
                     slash == std::string::npos ? runfiles_path : runfiles_path.substr(slash + 1));
  }
  char* real = realpath(p.c_str(), nullptr);
  if (real == nullptr || access(real, X_OK) != 0) {
    free(real);
    return absl::NotFoundError(absl::StrCat(base.rev, " has no ", runfiles_path));
  }
  std::string r(real);
  free(real);
  return r;
}

}  // namespace bench
