// How much host memory this process may still allocate, for the pre-checks of gpt_step, ddp_step
// (the CPU model, cpu_model.h) and gpt_decode: a run that needs more is refused up front with
// the figures, instead of being killed halfway through zeroing its buffers or aborting with
// bad_alloc. The lesser of the kernel's MemAvailable and, where the process has an address-space
// limit (RLIMIT_AS, `ulimit -v`), that limit less the address space already mapped (VmSize): under
// `ulimit -v 3000000` a gpt2 --batch=8 --seq=512 run passed the MemAvailable check and aborted.
#ifndef MODEL_HOST_MEMORY_H_
#define MODEL_HOST_MEMORY_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace model {

struct HostMemory {
  int64_t bytes = -1;  // -1: unknown (no /proc/meminfo and no limit)
  std::string what;    // "MemAvailable" or "the address-space limit (ulimit -v) 3.07 GB less 0.41 GB mapped"
};

HostMemory AvailableHostMemory();

// OK when need_bytes fits AvailableHostMemory() (or it is unknown); else ResourceExhausted
// "not enough host memory for <what_for>: needs 78.02 GB (<breakdown>), 12.3 GB available
// (<what>)".
absl::Status CheckHostMemory(int64_t need_bytes, const std::string& what_for, const std::string& breakdown);

// The same with the two needs apart: `resident_bytes` against MemAvailable (memory the run will
// touch) and `address_bytes` against the address-space limit's room (what it will map, touched or
// not: a thread's malloc arena reserves 64 MiB); the message names the one that does not fit.
absl::Status CheckHostMemory(int64_t resident_bytes, int64_t address_bytes, const std::string& what_for,
                             const std::string& breakdown);

// The process's peak resident set so far (VmHWM of /proc/self/status), bytes; -1 where unknown.
int64_t PeakResidentBytes();
// Starts VmHWM again from the current resident set (writes 5 to /proc/self/clear_refs, Linux
// 4.0 and later), so that a peak can be measured per phase; false where the kernel refuses.
bool ResetPeakResident();
// How many bytes of [data, data + bytes) sit in memory now (mincore over its pages): memory a
// buffer has touched, not merely reserved; -1 where mincore fails.
int64_t ResidentBytesOf(const void* data, int64_t bytes);

}  // namespace model

#endif  // MODEL_HOST_MEMORY_H_
