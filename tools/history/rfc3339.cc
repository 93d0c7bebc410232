// RFC 3339 dates, checked and normalised to UTC (rfc3339.h).
#include "tools/history/rfc3339.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace history {
namespace {

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysIn(int y, int m) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Reads the text left to right; every step says whether it matched.
class Scanner {
 public:
  explicit Scanner(absl::string_view s) : s_(s) {}
  bool AtEnd() const { return i_ == s_.size(); }
  // Exactly n decimal digits.
  bool Number(int n, int* out) {
    if (i_ + n > s_.size()) return false;
    int v = 0;
    for (int k = 0; k < n; ++k) {
      const char c = s_[i_ + k];
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    i_ += n;
    *out = v;
    return true;
  }
  bool Char(char a, char b = '\0') {
    if (AtEnd() || (s_[i_] != a && (b == '\0' || s_[i_] != b))) return false;
    ++i_;
    return true;
  }
  // 1 to 9 digits after the '.', as nanoseconds; -1 digits when there are none or too many.
  int Fraction(int64_t* nanos) {
    int n = 0;
    int64_t v = 0;
    while (!AtEnd() && s_[i_] >= '0' && s_[i_] <= '9') {
      if (++n <= 9) v = v * 10 + (s_[i_] - '0');
      ++i_;
    }
    if (n == 0 || n > 9) return -1;
    for (int k = n; k < 9; ++k) v *= 10;
    *nanos = v;
    return n;
  }

 private:
  absl::string_view s_;
  size_t i_ = 0;
};

absl::Status Bad(absl::string_view s, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("'", s, "' is not a valid date: ", why, "; allowed: ", kDatesAllowed));
}

// The time of day and zone after "YYYY-MM-DD": seconds since midnight (with nanos) and the zone's
// offset east of UTC in seconds.
absl::Status TimeOfDay(absl::string_view s, Scanner& in, bool legacy, int* seconds, int64_t* nanos, int* offset) {
  int h = 0, mi = 0, se = 0;
  if (!in.Char('T', 't') || !in.Number(2, &h) || !in.Char(':') || !in.Number(2, &mi)) {
    return Bad(s, "expected YYYY-MM-DDTHH:MM:SS after the date");
  }
  const bool has_seconds = in.Char(':');
  if (has_seconds ? !in.Number(2, &se) : !legacy) return Bad(s, "expected seconds (HH:MM:SS)");
  if (has_seconds && in.Char('.') && in.Fraction(nanos) < 0) return Bad(s, "a fraction of a second has 1 to 9 digits");
  if (h > 23) return Bad(s, absl::StrFormat("hour %02d is not 00-23", h));
  if (mi > 59) return Bad(s, absl::StrFormat("minute %02d is not 00-59", mi));
  if (se == 60) return Bad(s, "second 60 (a leap second) is not accepted; seconds are 00-59");
  if (se > 59) return Bad(s, absl::StrFormat("second %02d is not 00-59", se));
  *seconds = h * 3600 + mi * 60 + se;
  *offset = 0;
  if (in.AtEnd()) {
    return legacy ? absl::OkStatus() : Bad(s, "no zone: end with Z (UTC) or an offset +HH:MM / -HH:MM");
  }
  if (in.Char('Z', 'z')) return in.AtEnd() ? absl::OkStatus() : Bad(s, "text after the zone");
  const bool east = in.Char('+');
  if (!east && !in.Char('-')) return Bad(s, "the zone is Z, +HH:MM or -HH:MM");
  int oh = 0, om = 0;
  if (!in.Number(2, &oh) || !in.Char(':') || !in.Number(2, &om) || !in.AtEnd()) {
    return Bad(s, "the zone is Z, +HH:MM or -HH:MM");
  }
  if (oh > 23) return Bad(s, absl::StrFormat("offset hour %02d is not 00-23", oh));
  if (om > 59) return Bad(s, absl::StrFormat("offset minute %02d is not 00-59", om));
  *offset = (east ? 1 : -1) * (oh * 3600 + om * 60);
  return absl::OkStatus();
}

absl::StatusOr<absl::Time> Parse(absl::string_view s, bool legacy) {
  Scanner in(s);
  int y = 0, mo = 0, d = 0;
  if (!in.Number(4, &y) || !in.Char('-') || !in.Number(2, &mo) || !in.Char('-') || !in.Number(2, &d)) {
    return Bad(s, "expected YYYY-MM-DD");
  }
  if (mo < 1 || mo > 12) return Bad(s, absl::StrFormat("month %02d is not 01-12", mo));
  if (d < 1 || d > DaysIn(y, mo)) {
    return Bad(s, absl::StrFormat("day %02d is not 01-%02d in %04d-%02d%s", d, DaysIn(y, mo), y, mo,
                                  mo == 2 && d == 29 ? " (not a leap year)" : ""));
  }
  int seconds = 0, offset = 0;
  int64_t nanos = 0;
  if (!in.AtEnd()) {
    if (absl::Status st = TimeOfDay(s, in, legacy, &seconds, &nanos, &offset); !st.ok()) return st;
  }
  const absl::Time t = absl::FromCivil(absl::CivilDay(y, mo, d), absl::UTCTimeZone()) + absl::Seconds(seconds) +
                       absl::Nanoseconds(nanos) - absl::Seconds(offset);
  if (t < absl::UnixEpoch() ||
      t >= absl::FromCivil(absl::CivilDay(10000, 1, 1), absl::UTCTimeZone())) {
    return Bad(s, "its instant is outside 1970-01-01T00:00:00Z .. 9999-12-31T23:59:59Z");
  }
  return t;
}

}  // namespace

absl::StatusOr<absl::Time> ParseRfc3339(absl::string_view s) { return Parse(s, /*legacy=*/false); }

absl::StatusOr<absl::Time> ParseStoredDate(absl::string_view s) { return Parse(s, /*legacy=*/true); }

std::string FormatUtc(absl::Time t) { return absl::FormatTime("%Y-%m-%dT%H:%M:%E*SZ", t, absl::UTCTimeZone()); }

absl::StatusOr<std::string> NormalizeDate(absl::string_view s) {
  absl::StatusOr<absl::Time> t = ParseRfc3339(s);
  if (!t.ok()) return t.status();
  return FormatUtc(*t);
}

}  // namespace history
