// flock on "<folder>/.lock"; see folder_lock.h.
#include "harness/folder_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace harness {
namespace {

// The pid the holder wrote into the lock file ("unknown" when empty or unreadable).
std::string Holder(int fd) {
  char buf[32] = {};
  const ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
  std::string pid = n > 0 ? std::string(absl::StripAsciiWhitespace(std::string(buf, n))) : "";
  return pid.empty() ? "unknown" : pid;
}

}  // namespace

std::string FolderLock::LockPath(const std::string& folder) { return absl::StrCat(folder, "/.lock"); }

absl::StatusOr<FolderLock> FolderLock::Acquire(const std::string& folder, const std::string& tool,
                                               double timeout_s) {
  const std::string path = LockPath(folder);
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open the lock file '", path, "': ", std::strerror(errno)));
  }
  FolderLock lock(fd);  // closes fd on every return below
  const auto start = std::chrono::steady_clock::now();
  bool said = false;
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) {
      return absl::FailedPreconditionError(absl::StrCat("cannot lock '", path, "': ", std::strerror(errno)));
    }
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeout_s > 0 && waited >= timeout_s) {
      return absl::DeadlineExceededError(absl::StrCat(
          "the lock '", path, "' is still held by pid ", Holder(fd), " after ", timeout_s,
          " s (another update of this folder is running; wait for it, or raise --lock_timeout_s)"));
    }
    if (!said) {
      std::fprintf(stderr, "%s: waiting for the lock %s (held by pid %s) ...\n", std::string(tool).c_str(),
                   path.c_str(), Holder(fd).c_str());
      said = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // Ours: say who holds it (best effort; the lock does not depend on it).
  const std::string pid = absl::StrCat(getpid(), "\n");
  if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, pid.data(), pid.size(), 0);
  if (said) std::fprintf(stderr, "%s: got the lock %s\n", tool.c_str(), path.c_str());
  return lock;
}

FolderLock& FolderLock::operator=(FolderLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace harness
