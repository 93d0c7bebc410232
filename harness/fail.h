// The line a tool prints when it stops on bad input or a broken measurement, and the exit code
// that goes with it (exit_codes.h): "<tool>: error: <message>" on stderr, then 2.
#ifndef HARNESS_FAIL_H_
#define HARNESS_FAIL_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace harness {

// Prints "<tool>: error: <status's message>" to stderr; returns kExitFailure, for `return Fail(...)`.
int Fail(absl::string_view tool, const absl::Status& status);

}  // namespace harness

#endif  // HARNESS_FAIL_H_
