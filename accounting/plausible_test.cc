// The bands: their edges pass, a figure just outside, a non-finite one and zero are refused
// with the value and the band named.
#include "accounting/plausible.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace accounting {
namespace {

TEST(PlausibleTest, FlopsBand) {
  EXPECT_TRUE(CheckPlausibleFlops("peak", 1e8).ok());
  EXPECT_TRUE(CheckPlausibleFlops("peak", 1e16).ok());
  EXPECT_TRUE(CheckPlausibleFlops("peak", 9.9e14).ok());  // an H100's bf16 dense
  for (double bad : {0.0, 1e-300, 9.9e7, 1.01e16, 1e308, std::numeric_limits<double>::infinity(),
                     std::nan("")}) {
    absl::Status s = CheckPlausibleFlops("--peak_flops", bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("outside the plausible band 1e+08 to 1e+16 FLOP/s"), std::string::npos) << s;
  }
  EXPECT_NE(CheckPlausibleFlops("--peak_flops", 1e-300).message().find("--peak_flops = 1e-300 FLOP/s"),
            std::string::npos);
}

TEST(PlausibleTest, BandwidthBand) {
  EXPECT_TRUE(CheckPlausibleBandwidth("bw", 1e8).ok());
  EXPECT_TRUE(CheckPlausibleBandwidth("bw", 1e14).ok());
  absl::Status s = CheckPlausibleBandwidth("bandwidth_bytes_per_s", 2e14);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("bandwidth_bytes_per_s = 2e+14 B/s is outside the plausible band 1e+08 to "
                             "1e+14 B/s"),
            std::string::npos)
      << s;
  EXPECT_FALSE(CheckPlausibleBandwidth("bw", 5e7).ok());
}

}  // namespace
}  // namespace accounting
