// File input and output shared by tools/bench and tools/gate: JSON files read with errors that
// say which file and where, and files written atomically (a temporary file in the same folder,
// then rename), so a crash or a full disk never leaves half a baseline behind.
#ifndef TOOLS_GATE_GATE_IO_H_
#define TOOLS_GATE_GATE_IO_H_

#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "harness/atomic_file.h"
#include "nlohmann/json.hpp"

namespace gate {

// NotFound when the file does not exist, FailedPrecondition when it cannot be read, OutOfRange
// when it is over harness::kMaxJsonFileBytes (checked before reading; harness/bounded_read.h);
// InvalidArgument, naming the file, the byte offset, line and column, when it is not JSON.
absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path);

// Parses `text` as JSON; `what` names its origin in errors (harness::ParseJsonOrError).
absl::StatusOr<nlohmann::json> ParseJson(const std::string& text, const std::string& what);

// The file's text, at most harness::kMaxJsonFileBytes; errors as ReadJsonFile's.
absl::StatusOr<std::string> ReadTextFile(const std::string& path);

// Temp file, fsync, rename (harness/atomic_file.h).
using harness::WriteFileAtomically;

using harness::CheckWritable;

// j[key] when `j` is an object holding `key` with a value of T's JSON kind (a string for
// std::string, a boolean for bool, a number for arithmetic T); else `fallback`. Never throws,
// unlike nlohmann's value(), which throws on a value of another kind (found by fuzzing).
template <typename T>
T ValueOr(const nlohmann::json& j, const char* key, T fallback) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  bool kind_ok = false;
  if constexpr (std::is_same_v<T, std::string>) {
    kind_ok = it->is_string();
  } else if constexpr (std::is_same_v<T, bool>) {
    kind_ok = it->is_boolean();
  } else {
    static_assert(std::is_arithmetic_v<T>, "ValueOr: string, bool or a number");
    kind_ok = it->is_number();
  }
  return kind_ok ? it->template get<T>() : fallback;
}

// `s` as one shell word: as is when it holds only safe characters (letters, digits, /._-=:+,),
// else in single quotes. For commands printed for people to copy, and for /bin/sh -c.
std::string ShellQuote(const std::string& s);

// (A path the user typed goes through harness::UserPath, harness/user_path.h.)
// Resolves a path inside the repository (e.g. the default tools/gate/baselines): against
// BUILD_WORKSPACE_DIRECTORY when set, else the working directory.
std::string WorkspacePath(const std::string& path);

}  // namespace gate

#endif  // TOOLS_GATE_GATE_IO_H_
