// How this binary was built: the commit (stamped at build time from Bazel's workspace status,
// so a binary carried to another machine still knows it), the compiler, Bazel's compilation
// mode and whether assertions are on. Part of the run context (run_context.h).
#ifndef SYSINFO_BUILD_INFO_H_
#define SYSINFO_BUILD_INFO_H_

#include <string>

namespace sysinfo {

struct BuildInfo {
  std::string commit;            // git SHA, "+dirty" when the tree differed; "unknown"
  std::string compiler;          // "g++ 12.2.0"
  std::string compilation_mode;  // Bazel's: "opt", "dbg", "fastbuild"
  bool asserts = false;          // built without NDEBUG
  std::string target_isa;        // what the compiler targeted: "AVX-512", "AVX2", "x86-64"
  // "opt, g++ 12.2.0, AVX-512 code, asserts off"
  std::string Describe() const;
};

BuildInfo GetBuildInfo();

}  // namespace sysinfo

#endif  // SYSINFO_BUILD_INFO_H_
