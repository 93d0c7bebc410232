// The foreign-CPU measure bench uses to retry rounds on a busy machine.
#include "tools/bench/bench_runner.h"

#include <chrono>
#include <thread>

#include "gtest/gtest.h"

namespace bench {
namespace {

TEST(ForeignCpuTest, ArithmeticOnSamples) {
  CpuSample a{10.0, 100.0, 1.0, true};
  // 4 s of machine time passed; 3 s busy, of which our children used 1 s: 2 / 4 foreign.
  CpuSample b{13.0, 104.0, 2.0, true};
  EXPECT_DOUBLE_EQ(ForeignCpuFraction(a, b), 0.5);
  CpuSample ours{12.0, 102.0, 3.0, true};  // all busy time was ours
  EXPECT_DOUBLE_EQ(ForeignCpuFraction(a, ours), 0.0);
  CpuSample invalid;
  EXPECT_DOUBLE_EQ(ForeignCpuFraction(a, invalid), 0.0);
}

TEST(ForeignCpuTest, ContentionIsWhatTheIdleCoresCannotAbsorb) {
  // A 1-thread benchmark on 2 CPUs leaves half the machine idle: another process using up to
  // one CPU does not contend with it.
  EXPECT_DOUBLE_EQ(Contention(0.4, 0.5), 0.0);
  EXPECT_DOUBLE_EQ(Contention(0.75, 0.5), 0.25);
  EXPECT_DOUBLE_EQ(Contention(0.3, 0.0), 0.3);
}

TEST(ForeignCpuTest, ABusyThreadOfOursCountsAsForeignToo) {
  // Busy work in this process (not a waited-for child) is "another process" for bench.
  CpuSample a = SampleCpu();
  if (!a.valid) GTEST_SKIP() << "/proc/stat not readable here";
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
  volatile double x = 0;
  while (std::chrono::steady_clock::now() < end) x = x + 1;
  CpuSample b = SampleCpu();
  double f = ForeignCpuFraction(a, b);
  // One spinning thread on an n-CPU machine is about 1/n of it; allow for clock granularity.
  unsigned n = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_GT(f, 0.5 / n) << "n = " << n;
}

}  // namespace
}  // namespace bench
