// HostOpTimer: totals per name, nesting, null timers, unbalanced End.
#include "model/op_timer.h"

#include <thread>

#include "gtest/gtest.h"

namespace model {
namespace {

TEST(HostOpTimer, SumsCallsPerNameInFirstSeenOrder) {
  HostOpTimer t;
  for (int i = 0; i < 3; ++i) {
    ScopedOp outer(&t, "step");
    {
      ScopedOp a(&t, "a");
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ScopedOp b(&t, "b");
  }
  const auto totals = t.Totals();
  ASSERT_EQ(totals.size(), 3u);
  EXPECT_EQ(totals[0].op, "step");
  EXPECT_EQ(totals[1].op, "a");
  EXPECT_EQ(totals[2].op, "b");
  EXPECT_EQ(totals[1].calls, 3);
  EXPECT_GE(totals[1].seconds, 0.006);
  EXPECT_GE(totals[0].seconds, totals[1].seconds + totals[2].seconds);
  t.End();  // unbalanced: ignored
  t.Reset();
  EXPECT_TRUE(t.Totals().empty());
  ScopedOp none(nullptr, "nothing");  // a null timer is allowed
}

}  // namespace
}  // namespace model
