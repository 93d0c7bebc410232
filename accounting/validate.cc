#include "accounting/validate.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace accounting {

absl::Status RequirePositive(const char* name, double v) {
  if (v > 0 && std::isfinite(v)) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(name, "=", v, " is invalid: must be finite and > 0"));
}

absl::Status RequireAtLeastOne(const char* name, int64_t v) {
  if (v >= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(name, "=", v, " is invalid: must be >= 1"));
}

}  // namespace accounting
