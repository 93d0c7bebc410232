// Cache folders under XDG_CACHE_HOME or HOME, private and ours; see cache_dir.h.
#include "harness/cache_dir.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace harness {
namespace {

// "HOME is not set" / "HOME='x' is not an absolute path" / "" when it is usable.
std::string WhyUnusable(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return absl::StrCat(name, " is not set");
  if (v[0] != '/') return absl::StrCat(name, "='", v, "' is not an absolute path");
  return "";
}

}  // namespace

absl::StatusOr<std::string> CacheRoot() {
  const std::string xdg = WhyUnusable("XDG_CACHE_HOME");
  if (xdg.empty()) return absl::StrCat(std::getenv("XDG_CACHE_HOME"), "/mlbench");
  const std::string home = WhyUnusable("HOME");
  if (home.empty()) return absl::StrCat(std::getenv("HOME"), "/.cache/mlbench");
  return absl::FailedPreconditionError(
      absl::StrCat("no cache folder: ", xdg, " and ", home,
                   "; set one of them (mlbench keeps its caches under $XDG_CACHE_HOME/mlbench or "
                   "$HOME/.cache/mlbench, never in a shared folder such as /tmp, where another user "
                   "could plant the folder first)"));
}

absl::Status CheckOwnPrivateDir(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) {
    return absl::FailedPreconditionError(absl::StrCat("cache folder '", dir, "': ", std::strerror(errno)));
  }
  const std::string what = absl::StrFormat("owner uid %d, mode %04o", st.st_uid, st.st_mode & 07777);
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("cache folder '", dir, "' is not a folder"));
  }
  if (st.st_uid != geteuid()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "cache folder '%s' is not ours (%s; this process runs as uid %d): refusing to build in a "
        "folder another user may control; remove it or choose another",
        dir, what, geteuid()));
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "cache folder '%s' is writable by its group or by others (%s): refusing to build in it; "
        "chmod go-w it, or remove it",
        dir, what));
  }
  return absl::OkStatus();
}

absl::Status MakeOwnPrivateDir(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    const std::string partial = dir.substr(0, i);
    if (mkdir(partial.c_str(), 0700) == 0) {
      chmod(partial.c_str(), 0700);  // mkdir's mode is masked by the umask: exactly 0700
    } else if (errno != EEXIST) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create cache folder '", partial, "': ", std::strerror(errno)));
    }
  }
  return CheckOwnPrivateDir(dir);
}

}  // namespace harness
