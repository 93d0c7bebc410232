// Runs a program (a benchmark binary, a tool) as a child process (fork + execv, no shell, so a filter regex
// is passed through byte for byte) and captures its standard output. The child's standard error goes to ours
// (its own messages stay visible) unless the caller asks to capture it too.
#ifndef HARNESS_SUBPROCESS_H_
#define HARNESS_SUBPROCESS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace harness {

struct ProcessResult {
  int exit_code = 0;  // 128 + signal number when the child was killed by a signal
  std::string stdout_text;
  std::string stderr_text;  // only with capture_stderr
};

// argv[0] is the program: a path, or a bare name looked up in PATH. Fails only when the process
// cannot be started or waited for; a non-zero exit (127: could not exec) is reported in
// exit_code for the caller to judge.
// The last `n` characters of a child's output, for error messages.
inline std::string Tail(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(s.size() - n); }

absl::StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv, bool capture_stderr = false);

}  // namespace harness

#endif  // HARNESS_SUBPROCESS_H_
