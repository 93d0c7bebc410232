// How a benchmark case says "not applicable here" (a CUDA case without a device, an FMA case
// for an ISA this CPU lacks) as opposed to "failed". Google Benchmark 1.7.1 has only
// SkipWithError, so a skip is an error whose message starts with kSkipPrefix: binaries exit 0
// when only skips occurred, and tools/bench and tools/gate list such cases as SKIPPED, never
// as failures and never as numbers.
#ifndef HARNESS_SKIP_H_
#define HARNESS_SKIP_H_

#include <string>

namespace harness {

inline constexpr char kSkipPrefix[] = "skipped: ";

// "skipped: <reason>".
inline std::string SkipMessage(const std::string& reason) { return kSkipPrefix + reason; }

inline bool IsSkipMessage(const std::string& message) { return message.rfind(kSkipPrefix, 0) == 0; }

}  // namespace harness

#endif  // HARNESS_SKIP_H_
