// File input and output shared by tools/bench and tools/gate: JSON files read with errors that
// say which file and where, and files written atomically (a temporary file in the same folder,
// then rename), so a crash or a full disk never leaves half a baseline behind.
#ifndef TOOLS_GATE_GATE_IO_H_
#define TOOLS_GATE_GATE_IO_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "harness/atomic_file.h"
#include "nlohmann/json.hpp"

namespace gate {

// NotFound when the file does not exist, FailedPrecondition when it cannot be read; InvalidArgument, naming
// the file, the byte offset, line and column, when it is not JSON.
absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path);

// Parses `text` as JSON; `what` names its origin in errors.
absl::StatusOr<nlohmann::json> ParseJson(const std::string& text, const std::string& what);

absl::StatusOr<std::string> ReadTextFile(const std::string& path);

// Temp file, fsync, rename (harness/atomic_file.h).
using harness::WriteFileAtomically;

using harness::CheckWritable;

// `s` as one shell word: as is when it holds only safe characters (letters, digits, /._-=:+,),
// else in single quotes. For commands printed for people to copy, and for /bin/sh -c.
std::string ShellQuote(const std::string& s);

// (A path the user typed goes through harness::UserPath, harness/user_path.h.)
// Resolves a path inside the repository (e.g. the default tools/gate/baselines): against
// BUILD_WORKSPACE_DIRECTORY when set, else the working directory.
std::string WorkspacePath(const std::string& path);

}  // namespace gate

#endif  // TOOLS_GATE_GATE_IO_H_
