// Physical bands of peaks and bandwidths; see plausible.h.
#include "accounting/plausible.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace accounting {
namespace {

absl::Status CheckBand(const std::string& what, double v, double lo, double hi, const char* unit,
                       const char* of_what) {
  if (std::isfinite(v) && v >= lo && v <= hi) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s = %g %s is outside the plausible band %g to %g %s for %s (accounting/plausible.h): a typo "
      "or a broken measurement",
      what, v, unit, lo, hi, unit, of_what));
}

}  // namespace

absl::Status CheckPlausibleFlops(const std::string& what, double flops_per_s) {
  return CheckBand(what, flops_per_s, kMinPlausibleFlopsPerSecond, kMaxPlausibleFlopsPerSecond, "FLOP/s",
                   "one device's peak");
}

absl::Status CheckPlausibleBandwidth(const std::string& what, double bytes_per_s) {
  return CheckBand(what, bytes_per_s, kMinPlausibleBytesPerSecond, kMaxPlausibleBytesPerSecond, "B/s",
                   "a memory bandwidth");
}

}  // namespace accounting
