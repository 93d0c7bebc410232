// All-reduce bandwidth as nccl-tests defines it (PERFORMANCE.md):
//   algbw = bytes / seconds                  (bytes: the message size, one rank's buffer)
//   busbw = algbw x 2(n-1)/n                 (what each link carries in a ring all-reduce)
// busbw is comparable across rank counts and to the link's peak; algbw is not.
#ifndef ACCOUNTING_ALLREDUCE_BW_H_
#define ACCOUNTING_ALLREDUCE_BW_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace accounting {

struct AllreduceBw {
  double algbw = 0;  // bytes/s
  double busbw = 0;  // bytes/s
};

// Errors: bytes < 1, seconds not > 0, ranks < 1 (names the value).
absl::StatusOr<AllreduceBw> AllreduceBandwidth(int64_t bytes, double seconds, int ranks);

}  // namespace accounting

#endif  // ACCOUNTING_ALLREDUCE_BW_H_
