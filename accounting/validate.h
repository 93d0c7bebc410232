// The checks every formula and config applies to its inputs, with one wording for the error:
// "<name>=<value> is invalid: must be ...".
#ifndef ACCOUNTING_VALIDATE_H_
#define ACCOUNTING_VALIDATE_H_

#include <cstdint>

#include "absl/status/status.h"

namespace accounting {

// OK when v is finite and > 0 (a time, a rate, a peak, a count of FLOPs).
absl::Status RequirePositive(const char* name, double v);

// OK when v >= 1 (a count: layers, heads, devices).
absl::Status RequireAtLeastOne(const char* name, int64_t v);

}  // namespace accounting

#endif  // ACCOUNTING_VALIDATE_H_
