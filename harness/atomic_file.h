// The one output writer of the project: every file a binary or tool writes goes through
// WriteFileAtomically, which picks the way by what sits at the path:
//
//   a regular file, or nothing   a temporary file "<path>.tmp.<tool>.<pid>" is created in the same
//                                folder (O_CREAT|O_EXCL, so a planted file or link is never
//                                written through), written, flushed, fsynced and closed, every
//                                step checked, then renamed over `path`: a reader never sees half
//                                a file and a failed write leaves the old one as it was
//   a character device, a FIFO,  written in place, checked (never renamed over: /dev/null stays
//   /dev/stdout or /dev/stderr   a device; ENOSPC on a full device is an error)
//   a folder                     refused
//   a symbolic link              written through: its target (where the chain of links ends) is
//                                written as above, and the link stays a link
//
// A failed write is an error naming the path and the system's reason ("cannot write '/x/y':
// No space left on device"); every tool turns it into exit 2 (harness/exit_codes.h).
//
// SIGINT and SIGTERM while a temporary file exists remove it, then the process dies of the
// signal as it would have (exit status 130 / 143 in a shell). Child processes registered with
// RegisterChildProcess are stopped and waited for first (one may be writing such a file). A run
// killed otherwise (SIGKILL, a crash) leaves its temporary file behind; the next writer of
// `path` removes it.
#ifndef HARNESS_ATOMIC_FILE_H_
#define HARNESS_ATOMIC_FILE_H_

#include <sys/types.h>

#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace harness {

// "<path>.tmp.<tool>.<this process id>"; <tool> is the program's name (letters, digits, _ and -
// only; "mlbench" when it has none).
std::string TempPathFor(const std::string& path);

// Removes the temporary files of `path` whose process no longer exists (kill(pid, 0) fails with
// ESRCH): "<path>.tmp.<tool>.<pid>" and the older "<path>.tmp.<pid>" (pid: decimal digits only).
// A live pid's file is kept (another writer may be midway), as is this process's own and any
// other name. Best effort: errors are ignored (an unreadable folder is the writer's error to
// report). Returns how many it removed.
int RemoveStaleTempFiles(const std::string& path);

// How `path` is written (see the table above).
enum class OutputKind {
  kReplace,  // a regular file or a missing path: temporary file, then rename
  kInPlace,  // a character or block device, a FIFO, a socket, /dev/stdout, /dev/fd/N: written as it is
  kFolder,   // refused
};
OutputKind OutputKindOf(const std::string& path);

// The file a write of `path` replaces: `path`, or the end of its chain of symbolic links (a
// relative link read against the folder it sits in; at most 40 links followed) when that is a
// regular file or nothing yet; a stream, device or FIFO is `path` itself (written in place).
std::string OutputTarget(const std::string& path);

// Fails, saying why, when `path` could not be written: it names a folder; or for a file to be
// replaced, its folder is missing or not writable, the file is read-only, or the temporary file
// the write would make cannot be made (tried and removed: a name too long for the file system, a
// read-only mount); or for a device, FIFO or /dev/stdout, it is not writable. A link is judged by
// its target. For checking an output flag before a long run.
absl::Status CheckWritable(const std::string& path);

// InvalidArgument naming both flags when two outputs ({flag, path}; empty paths and streams such
// as /dev/stdout left out) would write one file (the same path, the same target through links, or
// the same folder spelled two ways): the later write would replace the earlier one's output.
absl::Status CheckDistinctOutputs(const std::vector<std::pair<std::string, std::string>>& outputs);
// Writes `contents` to `path` as the table above says (for a replaced file, stale temporary
// files of `path` are removed first). On failure a replaced file is untouched and no temporary
// file is left; the error names the file and the system's reason.
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

// The same for output written in pieces: `write` gets the open file and returns false when a
// write failed (errno says why).
absl::Status WriteFileAtomically(const std::string& path, const std::function<bool(std::FILE*)>& write);

// A temporary file that SIGINT and SIGTERM remove (the handler above): for temporary files made
// outside WriteFileAtomically (tools/bench's report of a child run). Registers `path` for as
// long as the object lives; the destructor unregisters it and removes the file. At most 32
// paths (of up to 4095 bytes) are registered at once; a path beyond that is simply not removed
// on a signal.
class TempFileGuard {
 public:
  explicit TempFileGuard(std::string path);
  ~TempFileGuard();
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int slot_;
};

// A child process that SIGINT and SIGTERM stop before the temporary files are removed: it gets
// SIGTERM, and SIGKILL if it is still there after 2 s, and is waited for, so that it cannot
// write a temporary file again once it is removed (harness/subprocess.h registers every child it
// runs). At most 8 at once; unregister it once it has been waited for.
void RegisterChildProcess(pid_t pid);
void UnregisterChildProcess(pid_t pid);

}  // namespace harness

#endif  // HARNESS_ATOMIC_FILE_H_
