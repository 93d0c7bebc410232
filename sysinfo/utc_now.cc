// UtcNow; see utc_now.h.
#include "sysinfo/utc_now.h"

#include <ctime>

namespace sysinfo {

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace sysinfo
