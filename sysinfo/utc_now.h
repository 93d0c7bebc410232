// The current time as every file of the project records it: UTC, ISO 8601, to the second.
#ifndef SYSINFO_UTC_NOW_H_
#define SYSINFO_UTC_NOW_H_

#include <string>

namespace sysinfo {

// "2026-11-30T12:34:56Z".
std::string UtcNow();

}  // namespace sysinfo

#endif  // SYSINFO_UTC_NOW_H_
