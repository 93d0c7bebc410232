// RFC 3339 dates: every field checked against its range (leap years included), zones applied, one
// UTC spelling out.
#include "tools/history/rfc3339.h"

#include <string>

#include "gtest/gtest.h"

namespace history {
namespace {

std::string Norm(const std::string& s) {
  absl::StatusOr<std::string> n = NormalizeDate(s);
  return n.ok() ? *n : std::string(n.status().message());
}

TEST(Rfc3339, NormalisesToUtc) {
  EXPECT_EQ(Norm("2026-12-01T12:30:00-12:00"), "2026-12-02T00:30:00Z");
  EXPECT_EQ(Norm("2026-12-02T00:30:00+00:00"), "2026-12-02T00:30:00Z");
  EXPECT_EQ(Norm("2026-12-02T00:30:00-00:00"), "2026-12-02T00:30:00Z");
  EXPECT_EQ(Norm("2026-12-02t05:30:00+05:00"), "2026-12-02T00:30:00Z");
  EXPECT_EQ(Norm("2026-12-02T00:30:00z"), "2026-12-02T00:30:00Z");
  EXPECT_EQ(Norm("2026-11-30"), "2026-11-30T00:00:00Z");  // a bare date: midnight UTC
  EXPECT_EQ(Norm("2026-11-30T12:00:00.250Z"), "2026-11-30T12:00:00.25Z");
  EXPECT_EQ(Norm("2026-11-30T12:00:00.123456789Z"), "2026-11-30T12:00:00.123456789Z");
  EXPECT_EQ(Norm("2027-01-01T00:30:00+01:00"), "2026-12-31T23:30:00Z");  // across a year
}

TEST(Rfc3339, SortsByInstantWhereTextWouldNot) {
  // As text the first sorts before the second; as instants it is 11.5 hours later.
  const absl::Time a = *ParseRfc3339("2026-12-01T12:30:00-12:00");
  const absl::Time b = *ParseRfc3339("2026-12-01T13:00:00Z");
  EXPECT_GT(a, b);
  EXPECT_EQ(*ParseRfc3339("2026-12-01T13:00:00.5Z") - b, absl::Milliseconds(500));
}

TEST(Rfc3339, LeapYears) {
  for (const char* ok : {"2024-02-29", "2000-02-29", "2026-01-31", "2026-04-30", "2026-12-31T23:59:59Z"}) {
    EXPECT_TRUE(ParseRfc3339(ok).ok()) << ok;
  }
  for (const char* bad : {"2026-02-29", "2100-02-29", "2026-04-31", "2026-02-30", "2026-06-31"}) {
    EXPECT_FALSE(ParseRfc3339(bad).ok()) << bad;
  }
  EXPECT_NE(Norm("2026-02-29").find("day 29 is not 01-28 in 2026-02 (not a leap year)"), std::string::npos)
      << Norm("2026-02-29");
}

TEST(Rfc3339, RefusesWithTheFieldAndItsRange) {
  const struct {
    const char* date;
    const char* says;
  } cases[] = {
      {"2026-13-45", "month 13 is not 01-12"},
      {"2026-02-30T25:61:61Z", "day 30 is not 01-28 in 2026-02"},
      {"2026-02-28T25:00:00Z", "hour 25 is not 00-23"},
      {"2026-02-28T23:61:00Z", "minute 61 is not 00-59"},
      {"2026-02-28T23:59:61Z", "second 61 is not 00-59"},
      {"2026-12-31T23:59:60Z", "second 60 (a leap second)"},
      {"0000-00-00", "month 00 is not 01-12"},
      {"2026-00-10", "month 00 is not 01-12"},
      {"2026-01-00", "day 00 is not 01-31"},
      {"1969-12-31T23:59:59Z", "outside 1970-01-01T00:00:00Z"},
      {"9999-12-31T23:00:00-02:00", "outside 1970-01-01T00:00:00Z"},
      {"2026-11-30T12:00:00", "no zone"},
      {"2026-11-30T12:00Z", "expected seconds"},
      {"2026-11-30T12:00:00+25:00", "offset hour 25"},
      {"2026-11-30T12:00:00+01:60", "offset minute 60"},
      {"2026-11-30T12:00:00+0100", "the zone is Z, +HH:MM or -HH:MM"},
      {"2026-11-30T12:00:00.Z", "1 to 9 digits"},
      {"2026-11-30T12:00:00.1234567890Z", "1 to 9 digits"},
      {"2026-11-30T12:00:00ZZ", "text after the zone"},
      {"2026-11-30 12:00:00Z", "expected YYYY-MM-DDTHH:MM:SS"},
      {"2026-1-30", "expected YYYY-MM-DD"},
      {"30/11/2026", "expected YYYY-MM-DD"},
      {"", "expected YYYY-MM-DD"},
      {"yesterday", "expected YYYY-MM-DD"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<absl::Time> t = ParseRfc3339(c.date);
    ASSERT_FALSE(t.ok()) << c.date;
    const std::string m(t.status().message());
    EXPECT_NE(m.find(std::string("'") + c.date + "' is not a valid date"), std::string::npos) << m;
    EXPECT_NE(m.find(c.says), std::string::npos) << c.date << ": " << m;
    EXPECT_NE(m.find("allowed: RFC 3339"), std::string::npos) << m;
  }
}

TEST(Rfc3339, StoredDatesOfOlderFilesStillRead) {
  EXPECT_EQ(FormatUtc(*ParseStoredDate("2026-11-30T12:00Z")), "2026-11-30T12:00:00Z");
  EXPECT_EQ(FormatUtc(*ParseStoredDate("2026-11-30T12:00:00")), "2026-11-30T12:00:00Z");
  EXPECT_EQ(FormatUtc(*ParseStoredDate("2026-11-30T12:00:00+01:00")), "2026-11-30T11:00:00Z");
  EXPECT_FALSE(ParseStoredDate("2026-13-45").ok());
}

}  // namespace
}  // namespace history
