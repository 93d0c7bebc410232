// Whole-file reads with a size limit checked before the file is read: a regular file's size is
// taken from fstat first, anything else (a FIFO, a character device such as /dev/zero) is read
// in chunks and refused as soon as it passes the limit, so no input makes a reader allocate
// without bound (`gate --current=/dev/zero` used to abort with bad_alloc).
#ifndef HARNESS_BOUNDED_READ_H_
#define HARNESS_BOUNDED_READ_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace harness {

// The limit of every JSON file the project reads: benchmark runs (tools/gate --current and
// --against, tools/report --in, tools/bench's merged runs, gpt_step's --benchmark_out rewrite),
// baselines and ceilings files. 256 MiB: the largest file written so far, a tools/bench run of
// every case at 50 repetitions, is under 10 MiB, and nlohmann::json takes about 10x a file's size
// in memory, so a file at the limit still parses in a few GiB.
inline constexpr uint64_t kMaxJsonFileBytes = uint64_t{256} << 20;

// The contents of `path`. Errors name `what` (e.g. "ceilings file") and the path: NotFound when
// it does not exist; FailedPrecondition when it cannot be opened or read, or is a directory;
// OutOfRange when it holds more than `max_bytes` (the message gives both sizes).
absl::StatusOr<std::string> ReadFileAtMost(const std::string& path, uint64_t max_bytes,
                                           const std::string& what);

// "256 MiB", "1.5 GiB", "512 bytes": a byte count for messages.
std::string DescribeBytes(uint64_t bytes);

}  // namespace harness

#endif  // HARNESS_BOUNDED_READ_H_
