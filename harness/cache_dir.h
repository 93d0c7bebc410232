// The project's cache folders (tools/bench --against's worktrees and its Bazel disk cache): under
// $XDG_CACHE_HOME/mlbench, else $HOME/.cache/mlbench, never under a shared folder such as /tmp,
// where another user could plant the folder first and have us build in it. Created with mode
// 0700; an existing one is used only when it is ours (owned by this uid, not writable by group
// or others).
#ifndef HARNESS_CACHE_DIR_H_
#define HARNESS_CACHE_DIR_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace harness {

// "$XDG_CACHE_HOME/mlbench" when XDG_CACHE_HOME is an absolute path, else "$HOME/.cache/mlbench"
// when HOME is; else FailedPrecondition saying which is unset or relative, and why there is no
// fallback.
absl::StatusOr<std::string> CacheRoot();

// Fails (FailedPrecondition) unless `dir` is a folder owned by this process's uid and not
// writable by its group or others; the error names the folder, its owner and its mode.
absl::Status CheckOwnPrivateDir(const std::string& dir);

// Creates `dir` and any missing parents with mode 0700 (whatever the umask), then checks `dir`
// with CheckOwnPrivateDir (an existing folder too). The error names the folder and the reason.
absl::Status MakeOwnPrivateDir(const std::string& dir);

}  // namespace harness

#endif  // HARNESS_CACHE_DIR_H_
