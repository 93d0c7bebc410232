// The request load of //macro:gpt_serve: n requests whose arrivals are a Poisson process at a
// rate (requests/s; exponential gaps between arrivals, as vLLM's benchmark_serving draws them),
// or all at t = 0 for an infinite rate; prompt and output lengths uniform over inclusive ranges;
// prompt tokens uniform in [0, vocab). Everything from one seed, in separate streams: the lengths
// and tokens do not depend on the rate, and the arrivals at rate r are those at rate 1 divided by
// r, so --find_max_rate's trials at different rates run the same requests, only closer together.
#ifndef MACRO_SERVE_LOAD_H_
#define MACRO_SERVE_LOAD_H_

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "macro/serve_scheduler.h"

namespace macro {

// Inclusive [lo, hi].
struct LengthRange {
  int lo = 0, hi = 0;
  std::string ToString() const;  // "16:128", or "16" when lo == hi
};

// "A:B" with 1 <= A <= B <= max, or "A" (A:A). InvalidArgument naming `flag` ("--prompt=...: ...")
// and what is allowed.
absl::StatusOr<LengthRange> ParseLengthRange(absl::string_view text, absl::string_view flag, int max);

// "inf" (every request at t = 0: +infinity) or a finite number > 0 of requests/s. InvalidArgument
// naming `flag` otherwise.
absl::StatusOr<double> ParseRate(absl::string_view text, absl::string_view flag);
std::string RateName(double rate);  // "inf" or "%g"

struct ServeLoad {
  std::vector<ServeRequest> requests;         // ids 0 .. n-1, arrivals ascending
  std::vector<std::vector<int32_t>> prompts;  // (n) each of its request's prompt length
};

// n >= 0 requests; rate > 0 (or +infinity); vocab >= 1; ranges as ParseLengthRange gives them.
ServeLoad MakeServeLoad(int n, double rate, LengthRange prompt, LengthRange output, int vocab, uint64_t seed);

}  // namespace macro

#endif  // MACRO_SERVE_LOAD_H_
