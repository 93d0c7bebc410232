// Temporary files of the write-then-rename pattern: every writer here writes "<path>.tmp.<pid>"
// in the folder of `path`, then renames it over `path`. A run killed between the two leaves the
// temporary file behind; the next writer of `path` removes it.
#ifndef HARNESS_STALE_TEMP_H_
#define HARNESS_STALE_TEMP_H_

#include <string>

namespace harness {

// "<path>.tmp.<this process id>".
std::string TempPathFor(const std::string& path);

// Removes the files "<path>.tmp.<pid>" (pid: decimal digits only) in the folder of `path` whose
// process no longer exists (kill(pid, 0) fails with ESRCH). A live pid's file is kept (another
// writer may be midway), as is this process's own and any other name. Best effort: errors are
// ignored (an unreadable folder is the writer's error to report). Returns how many it removed.
int RemoveStaleTempFiles(const std::string& path);

}  // namespace harness

#endif  // HARNESS_STALE_TEMP_H_
