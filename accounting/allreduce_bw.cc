// algbw and busbw of an all-reduce (nccl-tests' definitions).
#include "accounting/allreduce_bw.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace accounting {

absl::StatusOr<AllreduceBw> AllreduceBandwidth(int64_t bytes, double seconds, int ranks) {
  if (bytes < 1)
    return absl::InvalidArgumentError(absl::StrCat("bytes=", bytes, " is invalid: must be >= 1"));
  if (!(seconds > 0) || !std::isfinite(seconds)) {
    return absl::InvalidArgumentError(
        absl::StrCat("seconds=", seconds, " is invalid: must be finite and > 0"));
  }
  if (ranks < 1)
    return absl::InvalidArgumentError(absl::StrCat("ranks=", ranks, " is invalid: must be >= 1"));
  AllreduceBw bw;
  bw.algbw = static_cast<double>(bytes) / seconds;
  bw.busbw = bw.algbw * 2.0 * (ranks - 1) / ranks;
  return bw;
}

}  // namespace accounting
