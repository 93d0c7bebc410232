// An advisory lock on a folder, so that read-merge-write updates of the files in it (gate
// --update of a baseline) serialize instead of losing one another's changes.
//
// The lock is flock(LOCK_EX) on "<folder>/.lock" (created O_CREAT|O_CLOEXEC, mode 0644, and
// left in place: removing it would race with a waiter that opened it). The holder writes its
// pid into the file, so a waiter can say whom it waits for. The kernel releases the lock when
// the holder's descriptor closes: on destruction, on exit, and when the process is killed, so a
// crashed holder never leaves the folder locked.
#ifndef HARNESS_FOLDER_LOCK_H_
#define HARNESS_FOLDER_LOCK_H_

#include <string>

#include "absl/status/statusor.h"

namespace harness {

class FolderLock {
 public:
  // The lock file of `folder`: "<folder>/.lock".
  static std::string LockPath(const std::string& folder);

  // Takes the lock of `folder` (which must exist). When another process holds it, prints once
  // "<tool>: waiting for the lock <file> (held by pid N) ..." on stderr and retries every 50 ms
  // for up to `timeout_s` seconds (<= 0: wait without a bound); then fails (DeadlineExceeded)
  // naming the file, the holder's pid and the timeout. Other errors name the file and the
  // system's reason.
  static absl::StatusOr<FolderLock> Acquire(const std::string& folder, const std::string& tool,
                                            double timeout_s);

  FolderLock(FolderLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FolderLock& operator=(FolderLock&& other) noexcept;
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock();  // releases the lock

 private:
  explicit FolderLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace harness

#endif  // HARNESS_FOLDER_LOCK_H_
