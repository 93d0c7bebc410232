// Paths the user typed, resolved where the user is (user_path.h).
#include "harness/user_path.h"

#include <unistd.h>

#include <cstdlib>
#include <deque>
#include <string>

namespace harness {
namespace {

std::string WorkingDirectory() {
  std::string buf(4096, '\0');
  while (getcwd(buf.data(), buf.size()) == nullptr) {
    if (buf.size() > (1u << 20)) return ".";  // not expected: keep the path relative to "."
    buf.resize(buf.size() * 2);
  }
  return std::string(buf.c_str());
}

}  // namespace

std::string UserPath(const std::string& flag_value) {
  if (flag_value.empty() || flag_value[0] == '/') return flag_value;
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  std::string base = (wd != nullptr && *wd != '\0') ? std::string(wd) : WorkingDirectory();
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  std::string rel = flag_value;
  while (rel.rfind("./", 0) == 0) rel.erase(0, 2);
  if (rel.empty() || rel == ".") return base;
  return base == "/" ? "/" + rel : base + "/" + rel;
}

std::string RewritePathFlag(int argc, char** argv, const std::string& flag) {
  static std::deque<std::string>* kept = new std::deque<std::string>();  // argv strings, for the process
  const std::string prefix = "--" + flag + "=";
  std::string last;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(prefix, 0) != 0) continue;
    const std::string value = arg.substr(prefix.size());
    last = UserPath(value);
    if (last == value) continue;
    kept->push_back(prefix + last);
    argv[i] = kept->back().data();
  }
  return last;
}

}  // namespace harness
