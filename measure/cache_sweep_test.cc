// The working-set sweep: a tiny one (16 KiB to 2 MiB, one trial of 0.5 ms, well under a second
// even under AddressSanitizer) has a finite rate > 0 for every kind at every size and levels in
// order; the sizes and the default largest one; bad options are errors naming the value.
#include "measure/cache_sweep.h"

#include <cmath>
#include <string>

#include "gtest/gtest.h"

namespace micro {
namespace {

constexpr int64_t kKiB = 1024, kMiB = 1024 * kKiB;

CacheSweepOptions Tiny() {
  CacheSweepOptions o;
  o.min_bytes = 16 * kKiB;
  o.max_bytes = 2 * kMiB;
  o.trials = 1;
  o.seconds_per_trial = 0.0005;
  return o;
}

TEST(MeasureCacheSweep, EveryKindAtEverySize) {
  auto r = MeasureCacheSweep(Tiny());
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->working_set_bytes, SweepWorkingSets(16 * kKiB, 2 * kMiB, 2));
  ASSERT_EQ(r->bytes_per_s.size(), std::size(accounting::kAllTrafficKinds));
  for (accounting::TrafficKind kind : accounting::kAllTrafficKinds) {
    const std::string name(accounting::TrafficKindName(kind));
    SCOPED_TRACE(name);
    ASSERT_EQ(r->bytes_per_s.count(name), 1u);
    const std::vector<double>& rates = r->bytes_per_s.at(name);
    ASSERT_EQ(rates.size(), r->working_set_bytes.size());
    for (double rate : rates) {
      EXPECT_TRUE(std::isfinite(rate)) << rate;
      EXPECT_GT(rate, 0);
    }
  }
  for (size_t l = 0; l < r->levels.size(); ++l) {
    const accounting::CacheLevel& level = r->levels[l];
    EXPECT_EQ(level.name, "L" + std::to_string(l + 1));
    EXPECT_GT(level.capacity_bytes, 0);
    EXPECT_LE(level.capacity_bytes, r->working_set_bytes.back());
    if (l > 0) {
      EXPECT_GT(level.capacity_bytes, r->levels[l - 1].capacity_bytes);
    }
    EXPECT_EQ(level.bytes_per_s.size(), std::size(accounting::kAllTrafficKinds));
    for (const auto& [kind, rate] : level.bytes_per_s) EXPECT_GT(rate, 0) << kind;
  }
  EXPECT_NE(r->method.find("read"), std::string::npos) << r->method;
  EXPECT_GT(r->seconds, 0);
}

TEST(SweepWorkingSets, GeometricRoundedToWholeLinesPerArray) {
  const std::vector<int64_t> w = SweepWorkingSets(16 * kKiB, 2 * kMiB, 2);
  ASSERT_EQ(w.size(), 15u);  // 7 doublings, 2 points each, both ends
  for (size_t i = 0; i < w.size(); ++i) {
    EXPECT_EQ(w[i] % 384, 0) << w[i];  // 64-byte lines for 1, 2 or 3 arrays
    const double exact = 16 * kKiB * std::exp2(i / 2.0);
    EXPECT_LE(std::fabs(w[i] - exact), 192) << i;
    if (i > 0) {
      EXPECT_GT(w[i], w[i - 1]);
    }
  }
  EXPECT_EQ(w.front(), 16 * kKiB + 128);  // neither end is a multiple of 384: the nearest ones
  EXPECT_EQ(w.back(), 2 * kMiB - 128);
  // Many points an octave at small sizes: rounding would repeat sizes; each appears once.
  const std::vector<int64_t> dense = SweepWorkingSets(4096, 8192, 16);
  for (size_t i = 1; i < dense.size(); ++i) EXPECT_GT(dense[i], dense[i - 1]);
  EXPECT_TRUE(SweepWorkingSets(0, 8192, 2).empty());
}

TEST(DefaultSweepMaxBytes, FourTimesTheLlcWithinBounds) {
  EXPECT_EQ(DefaultSweepMaxBytes(32 * kMiB), 128 * kMiB);
  EXPECT_EQ(DefaultSweepMaxBytes(8 * kMiB), 64 * kMiB);     // at least 64 MiB
  EXPECT_EQ(DefaultSweepMaxBytes(480 * kMiB), 512 * kMiB);  // a VM reporting its host's L3
  EXPECT_EQ(DefaultSweepMaxBytes(0), 256 * kMiB);           // unknown
}

std::string Error(const CacheSweepOptions& o) {
  auto r = MeasureCacheSweep(o);
  return r.ok() ? "" : std::string(r.status().message());
}

TEST(MeasureCacheSweep, BadOptionsNameTheValue) {
  CacheSweepOptions o = Tiny();
  o.min_bytes = 4 * kMiB;
  EXPECT_NE(Error(o).find("min_bytes = 4194304 is above max_bytes = 2097152"), std::string::npos) << Error(o);
  o = Tiny();
  o.min_bytes = 2048;
  EXPECT_NE(Error(o).find("min_bytes = 2048; need >= 4096"), std::string::npos) << Error(o);
  o = Tiny();
  o.max_bytes = -1;
  EXPECT_NE(Error(o).find("max_bytes = -1"), std::string::npos) << Error(o);
  o = Tiny();
  o.trials = 0;
  EXPECT_NE(Error(o).find("trials = 0; need >= 1"), std::string::npos) << Error(o);
  o = Tiny();
  o.points_per_octave = 0;
  EXPECT_NE(Error(o).find("points_per_octave = 0; need 1 to 16"), std::string::npos) << Error(o);
  o.points_per_octave = 17;
  EXPECT_NE(Error(o).find("points_per_octave = 17"), std::string::npos) << Error(o);
  o = Tiny();
  o.seconds_per_trial = 0;
  EXPECT_NE(Error(o).find("seconds_per_trial = 0"), std::string::npos) << Error(o);
  o.seconds_per_trial = std::nan("");
  EXPECT_NE(Error(o).find("seconds_per_trial = nan"), std::string::npos) << Error(o);
  o = Tiny();
  o.max_bytes = o.min_bytes * 3 / 2;  // 16 and 22.6 KiB: two sizes
  EXPECT_NE(Error(o).find("gives 2 working sets; need at least 3"), std::string::npos) << Error(o);
}

}  // namespace
}  // namespace micro
