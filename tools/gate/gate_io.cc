// JSON reading with positions and atomic writes; see gate_io.h.
#include "tools/gate/gate_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "harness/atomic_file.h"

namespace gate {

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  errno = 0;
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    int err = errno;
    std::string msg = absl::StrCat("cannot read '", path, "': ", std::strerror(err));
    if (err == ENOENT) return absl::NotFoundError(msg);
    return absl::FailedPreconditionError(msg);
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return absl::DataLossError(absl::StrCat("error while reading '", path, "'"));
  return ss.str();
}

absl::StatusOr<nlohmann::json> ParseJson(const std::string& text, const std::string& what) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based: the byte at which the parser gave up. Give line and column as well.
    size_t byte = e.byte == 0 ? 0 : e.byte - 1;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return absl::InvalidArgumentError(absl::StrCat("malformed JSON in ", what, " at byte offset ", byte,
                                                   " (line ", line, ", column ", col, "): ", e.what()));
  } catch (const nlohmann::json::exception& e) {
    // Well-formed but not representable, e.g. a number past the range of a double (out_of_range
    // 406); found by fuzz/gate_run_fuzz, it aborted gate.
    return absl::InvalidArgumentError(absl::StrCat("unreadable JSON in ", what, ": ", e.what()));
  }
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
