// The memory this process may still allocate; see host_memory.h.
#include "model/host_memory.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

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

// The address-space limit's room (RLIMIT_AS less VmSize); bytes -1 when there is no limit.
HostMemory AddressSpaceLeft() {
  HostMemory m;
  struct rlimit lim;
  if (getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
    const int64_t limit = static_cast<int64_t>(lim.rlim_cur);
    const int64_t mapped = std::max<int64_t>(0, ProcKilobytes("/proc/self/status", "VmSize:"));
    m.bytes = std::max<int64_t>(0, limit - mapped);
    m.what = absl::StrCat("the address-space limit (RLIMIT_AS, ulimit -v) ", FormatBytes(limit), " less ",
                          FormatBytes(mapped), " already mapped");
  }
  return m;
}

HostMemory MemAvailable() {
  HostMemory m;
  m.bytes = ProcKilobytes("/proc/meminfo", "MemAvailable:");
  if (m.bytes >= 0) m.what = "MemAvailable";
  return m;
}

absl::Status NotEnough(int64_t need_bytes, const HostMemory& room, const std::string& what_for,
                       const std::string& breakdown) {
  return absl::ResourceExhaustedError(absl::StrCat("not enough host memory for ", what_for, ": needs ",
                                                   FormatBytes(need_bytes), " (", breakdown, "), ",
                                                   FormatBytes(room.bytes), " available (", room.what, ")"));
}

}  // namespace

HostMemory AvailableHostMemory() {
  HostMemory m = MemAvailable();
  const HostMemory address = AddressSpaceLeft();
  if (address.bytes >= 0 && (m.bytes < 0 || address.bytes < m.bytes)) m = address;
  return m;
}

absl::Status CheckHostMemory(int64_t resident_bytes, int64_t address_bytes, const std::string& what_for,
                             const std::string& breakdown) {
  if (const HostMemory a = AddressSpaceLeft(); a.bytes >= 0 && address_bytes > a.bytes) {
    return NotEnough(address_bytes, a, what_for, breakdown);
  }
  if (const HostMemory m = MemAvailable(); m.bytes >= 0 && resident_bytes > m.bytes) {
    return NotEnough(resident_bytes, m, what_for, breakdown);
  }
  return absl::OkStatus();
}

absl::Status CheckHostMemory(int64_t need_bytes, const std::string& what_for, const std::string& breakdown) {
  return CheckHostMemory(need_bytes, need_bytes, what_for, breakdown);
}

int64_t PeakResidentBytes() { return ProcKilobytes("/proc/self/status", "VmHWM:"); }

bool ResetPeakResident() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

int64_t ResidentBytesOf(const void* data, int64_t bytes) {
  if (data == nullptr || bytes <= 0) return 0;
  const int64_t page = sysconf(_SC_PAGESIZE);
  const uintptr_t first = reinterpret_cast<uintptr_t>(data) / page * page;
  const uintptr_t end = reinterpret_cast<uintptr_t>(data) + bytes;
  const int64_t pages = static_cast<int64_t>((end - first + page - 1) / page);
  std::vector<unsigned char> in(pages);
  if (mincore(reinterpret_cast<void*>(first), end - first, in.data()) != 0) return -1;
  int64_t resident = 0;
  for (int64_t i = 0; i < pages; ++i) {
    if (in[i] & 1) {
      // The buffer's share of the page: its first and last pages may be partly someone else's.
      const uintptr_t lo = std::max<uintptr_t>(first + i * page, reinterpret_cast<uintptr_t>(data));
      const uintptr_t hi = std::min<uintptr_t>(first + (i + 1) * page, end);
      resident += static_cast<int64_t>(hi - lo);
    }
  }
  return resident;
}

}  // namespace model
