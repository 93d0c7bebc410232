// The date of a recorded run: an RFC 3339 timestamp, checked field by field and kept as the UTC
// instant it names, so that runs sort by when they ran, whatever zone they were written in.
//
// Accepted (T, Z may be lower case):
//   2026-11-30T12:00:00Z  2026-11-30T12:00:00.25+05:30  2026-11-30T12:00:00-12:00
//   2026-11-30            a bare date: midnight UTC
// Ranges: month 01-12; day 01 to the month's length (February 29 only in a leap year: divisible
// by 4, centuries only when divisible by 400); hour 00-23, minute 00-59, second 00-59 (a leap
// second, :60, is refused); 1 to 9 fractional digits; offset hours 00-23, minutes 00-59. The
// instant must lie in 1970-01-01T00:00:00Z .. 9999-12-31T23:59:59Z.
// A time without a zone (2026-11-30T12:00:00) is refused: it names no instant.
#ifndef TOOLS_HISTORY_RFC3339_H_
#define TOOLS_HISTORY_RFC3339_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace history {

// What is allowed, for error messages.
inline constexpr char kDatesAllowed[] =
    "RFC 3339 with a zone, e.g. 2026-11-30T12:00:00Z or 2026-11-30T12:00:00+01:00, or a bare date "
    "2026-11-30 (midnight UTC)";

// The instant `s` names. InvalidArgument "'<s>' is not a valid date: <which field and its range>".
absl::StatusOr<absl::Time> ParseRfc3339(absl::string_view s);

// The same, also accepting what tools/history stored before it checked dates: a time without
// seconds (2026-11-30T12:00Z) or without a zone (read as UTC). For reading old databases only.
absl::StatusOr<absl::Time> ParseStoredDate(absl::string_view s);

// "2026-12-02T00:30:00Z": UTC, seconds always, a fraction only when there is one.
std::string FormatUtc(absl::Time t);

// FormatUtc(ParseRfc3339(s)): the one spelling a date is stored in.
absl::StatusOr<std::string> NormalizeDate(absl::string_view s);

}  // namespace history

#endif  // TOOLS_HISTORY_RFC3339_H_
