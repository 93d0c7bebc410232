// Where a path a user typed on the command line points. `bazel run` starts a binary in its
// runfiles folder, not in the folder the user ran bazel from, and sets BUILD_WORKING_DIRECTORY
// to the latter; every path flag of every binary and tool goes through UserPath, so
// `make_tokens --out=train.bin` then `gpt_step --data=train.bin` find the same file, and
// `--profile_out=trace.json` lands where the user is, not in bazel-bin.
#ifndef HARNESS_USER_PATH_H_
#define HARNESS_USER_PATH_H_

#include <string>

namespace harness {

// An absolute path: `flag_value` as is when absolute; a relative one against
// BUILD_WORKING_DIRECTORY when set (non-empty), else against the working directory. "" stays ""
// (a flag left unset). No symlinks are resolved and the file need not exist.
std::string UserPath(const std::string& flag_value);

// Rewrites a relative `--<flag>=VALUE` in argv (the `=` form, the one Google Benchmark parses)
// to `--<flag>=UserPath(VALUE)`, before the library that owns the flag parses it; returns the
// absolute path ("" when the flag is absent or empty). The new argv strings live for the
// process.
std::string RewritePathFlag(int argc, char** argv, const std::string& flag);

}  // namespace harness

#endif  // HARNESS_USER_PATH_H_
