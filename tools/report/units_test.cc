// Number formatting: SI prefixes, times, percents; missing and non-finite values as a dash.
#include "tools/report/units.h"

#include <cmath>

#include "gtest/gtest.h"

namespace report {
namespace {

TEST(Units, Si) {
  EXPECT_EQ(FormatSi(1.512e11, "FLOP/s"), "151 GFLOP/s");
  EXPECT_EQ(FormatSi(3.14e10, "B/s"), "31.4 GB/s");
  EXPECT_EQ(FormatSi(999.7, "B/s"), "1 kB/s");
  EXPECT_EQ(FormatSi(2.5e-3, "s"), "2.5 ms");
  EXPECT_EQ(FormatSi(0.0), "0");
  EXPECT_EQ(FormatSi(2500.0), "2.5 k");
  EXPECT_EQ(FormatSi(std::nullopt, "B/s"), kMissing);
  EXPECT_EQ(FormatSi(std::nan(""), "B/s"), kMissing);
  EXPECT_EQ(FormatSi(INFINITY, "B/s"), kMissing);
}

TEST(Units, SecondsPercentTicks) {
  EXPECT_EQ(FormatSeconds(812e-9), "812 ns");
  EXPECT_EQ(FormatSeconds(3.51e-6), "3.51 us");
  EXPECT_EQ(FormatSeconds(1.25e-3), "1.25 ms");
  EXPECT_EQ(FormatSeconds(2.4), "2.4 s");
  EXPECT_EQ(FormatSeconds(std::nan("")), kMissing);
  EXPECT_EQ(FormatPercent(71.24), "71.2%");
  EXPECT_EQ(FormatPercent(std::nullopt), kMissing);
  EXPECT_EQ(FormatPlain(42.666), "42.7");
  EXPECT_EQ(FormatTick(1e9), "1G");
  EXPECT_EQ(FormatTick(1e12), "1T");
  EXPECT_EQ(FormatTick(100), "100");
  EXPECT_EQ(FormatTick(0.01), "0.01");
  EXPECT_EQ(FormatTick(250), "250");
}

}  // namespace
}  // namespace report
