// Files written whole or not at all: every writer of the project writes "<path>.tmp.<pid>" in the
// folder of `path`, flushes it to disk, then renames it over `path`, so a reader never sees half
// a file and a failed write leaves the old one. A run killed between the two leaves the temporary
// file behind; the next writer of `path` removes it.
#ifndef HARNESS_ATOMIC_FILE_H_
#define HARNESS_ATOMIC_FILE_H_

#include <cstdio>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace harness {

// "<path>.tmp.<this process id>".
std::string TempPathFor(const std::string& path);

// Removes the files "<path>.tmp.<pid>" (pid: decimal digits only) in the folder of `path` whose
// process no longer exists (kill(pid, 0) fails with ESRCH). A live pid's file is kept (another
// writer may be midway), as is this process's own and any other name. Best effort: errors are
// ignored (an unreadable folder is the writer's error to report). Returns how many it removed.
int RemoveStaleTempFiles(const std::string& path);

// Fails, saying why, when `path` could not be written: its folder is missing or not writable,
// or it names a folder or a read-only file. For checking an output flag before a long run.
absl::Status CheckWritable(const std::string& path);

// Removes stale temporary files of `path`, writes `contents` to TempPathFor(path), fsyncs it and
// renames it over `path`. On failure the temporary file is removed and `path` is untouched;
// the error names the file and the system's reason ("cannot write '/x/y.tmp.12': No space left").
absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents);

// The same for output written in pieces: `write` gets the open temporary file and returns false
// when a write failed (errno says why).
absl::Status WriteFileAtomically(const std::string& path, const std::function<bool(std::FILE*)>& write);

}  // namespace harness

#endif  // HARNESS_ATOMIC_FILE_H_
