// JSON reading with positions and atomic writes; see gate_io.h.
#include "tools/gate/gate_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "harness/atomic_file.h"
#include "harness/bounded_read.h"
#include "harness/json_doc.h"

namespace gate {

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  return harness::ReadFileAtMost(path, harness::kMaxJsonFileBytes, "file");
}

absl::StatusOr<nlohmann::json> ParseJson(const std::string& text, const std::string& what) {
  return harness::ParseJsonOrError(text, what);
}

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseJson(*text, absl::StrCat("'", path, "'"));
}

namespace {
std::string Against(const char* env, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const char* base = std::getenv(env);
  if (base == nullptr || *base == '\0') return path;
  return absl::StrCat(base, "/", path);
}
}  // namespace

std::string ShellQuote(const std::string& s) {
  bool plain = !s.empty();
  for (char c : s) {
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) ||
                      std::string("/._-=:+,").find(c) != std::string::npos);
  }
  if (plain) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string WorkspacePath(const std::string& path) { return Against("BUILD_WORKSPACE_DIRECTORY", path); }

}  // namespace gate
