// Huge-page allocation and what the kernel granted (huge_pages.h).
#include "sysinfo/huge_pages.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sysinfo {

bool HugePagesRequested() {
  const char* off = std::getenv("MLBENCH_NO_HUGE_PAGES");
  return off == nullptr || off[0] == '\0' || std::strcmp(off, "0") == 0;
}

void* AllocateLarge(size_t bytes) {
  const bool huge = bytes >= kHugePageMinBytes && HugePagesRequested();
  const size_t align = huge ? kHugePageBytes : 64;
  const size_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded == 0 ? align : rounded);
  // EINVAL where the kernel has no THP: the buffer stays on 4 KiB pages, which is still correct.
  if (p != nullptr && huge) madvise(p, rounded, MADV_HUGEPAGE);
  return p;
}

std::string ThpMode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  if (!std::getline(f, line)) return "";
  const size_t open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  return line.substr(open + 1, close - open - 1);
}

int64_t ProcessHugePageBytes() {
  std::ifstream f("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("AnonHugePages:", 0) != 0) continue;
    std::istringstream in(line.substr(14));
    int64_t kb = -1;
    std::string unit;
    if (in >> kb >> unit && unit == "kB" && kb >= 0) return kb * 1024;
    return -1;
  }
  return -1;
}

std::string DescribeHugePages() {
  const std::string mode = ThpMode();
  if (mode.empty()) return "no transparent huge pages in this kernel: 4 KiB pages";
  if (mode == "never") return "THP never (/sys/kernel/mm/transparent_hugepage/enabled): 4 KiB pages";
  const int64_t held = ProcessHugePageBytes();
  const std::string advice = HugePagesRequested()
                                 ? absl::StrFormat("advised on buffers >= %d MiB", kHugePageMinBytes >> 20)
                                 : "advice off: MLBENCH_NO_HUGE_PAGES is set";
  if (held < 0) return absl::StrCat("THP ", mode, ", ", advice, "; huge pages held unknown (no smaps_rollup)");
  return absl::StrFormat("%.2f GB of the process's memory on 2 MiB huge pages (THP %s, %s)", held / 1e9, mode,
                         advice);
}

}  // namespace sysinfo
