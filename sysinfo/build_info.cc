// The build's description; the stamp comes from the genrule :build_stamp (sysinfo/BUILD.bazel).
#include "sysinfo/build_info.h"

namespace sysinfo {
namespace {
// Defines kStampedCommit and kCompilationMode.
#include "sysinfo/build_stamp.inc"
}  // namespace

std::string BuildInfo::Describe() const {
  return compilation_mode + ", " + compiler + ", " + target_isa + " code, asserts " +
         (asserts ? "on" : "off");
}

BuildInfo GetBuildInfo() {
  BuildInfo b;
  b.commit = kStampedCommit[0] != '\0' ? kStampedCommit : "unknown";
#if defined(__clang__)
  b.compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  b.compiler = std::string("g++ ") + __VERSION__;
#else
  b.compiler = "unknown compiler";
#endif
  b.compilation_mode = kCompilationMode;
#ifdef NDEBUG
  b.asserts = false;
#else
  b.asserts = true;
#endif
#if defined(__AVX512F__)
  b.target_isa = "AVX-512";
#elif defined(__AVX2__)
  b.target_isa = "AVX2";
#else
  b.target_isa = "x86-64";
#endif
  return b;
}

}  // namespace sysinfo
