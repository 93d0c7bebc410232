// The memory this process may still allocate; see host_memory.h.
#include "model/host_memory.h"

#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "model/gpt_memory.h"

namespace model {
namespace {

// The value of `key` (e.g. "MemAvailable:") in a /proc file of "Key: N kB" lines, in bytes; -1
// when absent.
int64_t ProcKilobytes(const char* path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    try {
      return std::stoll(line.substr(key.size())) * 1024;
    } catch (...) {
      return -1;
    }
  }
  return -1;
}

}  // namespace

HostMemory AvailableHostMemory() {
  HostMemory m;
  m.bytes = ProcKilobytes("/proc/meminfo", "MemAvailable:");
  if (m.bytes >= 0) m.what = "MemAvailable";
  struct rlimit lim;
  if (getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
    const int64_t limit = static_cast<int64_t>(lim.rlim_cur);
    const int64_t mapped = std::max<int64_t>(0, ProcKilobytes("/proc/self/status", "VmSize:"));
    const int64_t left = std::max<int64_t>(0, limit - mapped);
    if (m.bytes < 0 || left < m.bytes) {
      m.bytes = left;
      m.what = absl::StrCat("the address-space limit (RLIMIT_AS, ulimit -v) ", FormatBytes(limit), " less ",
                            FormatBytes(mapped), " already mapped");
    }
  }
  return m;
}

absl::Status CheckHostMemory(int64_t need_bytes, const std::string& what_for, const std::string& breakdown) {
  const HostMemory available = AvailableHostMemory();
  if (available.bytes < 0 || need_bytes <= available.bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat("not enough host memory for ", what_for, ": needs ",
                                                   FormatBytes(need_bytes), " (", breakdown, "), ",
                                                   FormatBytes(available.bytes), " available (", available.what,
                                                   ")"));
}

}  // namespace model
