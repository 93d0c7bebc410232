// FlopCounter, scoping and nesting; forward/backward ratios and 6ND (Kaplan et al. 2020) measured by
// counting the matmuls a tiny linear network issues.
#include "accounting/flop_counter.h"

#include <thread>
#include <vector>

#include "accounting/costs.h"
#include "gtest/gtest.h"

namespace accounting {
namespace {

TEST(FlopCounter, AccumulatesByTag) {
  FlopCounter c;
  c.AddMatmul(2, 3, 4);
  c.AddMatmul(1, 1, 1, "qkv");
  c.AddFlops(10, "softmax");
  EXPECT_EQ(c.total(), 48 + 2 + 10);
  EXPECT_EQ(c.matmul_total(), 50);
  EXPECT_EQ(c.matmul_calls(), 2);
  EXPECT_EQ(c.by_tag().at("matmul"), 48);
  EXPECT_EQ(c.by_tag().at("qkv"), 2);
  EXPECT_EQ(c.by_tag().at("softmax"), 10);
  c.Reset();
  EXPECT_EQ(c.total(), 0);
  EXPECT_TRUE(c.by_tag().empty());
}

TEST(FlopCounter, NoCounterMeansNoOp) {
  ASSERT_EQ(CurrentFlopCounter(), nullptr);
  CountMatmul(10, 10, 10);  // must not crash
  CountFlops(5, "x");
}

TEST(FlopCounter, ScopesNestAndRestore) {
  FlopCounter outer, inner;
  {
    ScopedFlopCounter a(&outer);
    CountMatmul(1, 1, 1);
    {
      ScopedFlopCounter b(&inner);
      CountMatmul(2, 2, 2);
      EXPECT_EQ(CurrentFlopCounter(), &inner);
    }
    EXPECT_EQ(CurrentFlopCounter(), &outer);
    CountMatmul(1, 1, 1);
  }
  EXPECT_EQ(CurrentFlopCounter(), nullptr);
  EXPECT_EQ(outer.total(), 4);   // inner's 16 not forwarded
  EXPECT_EQ(inner.total(), 16);
}

TEST(FlopCounter, CurrentCounterIsPerThread) {
  FlopCounter mine, theirs;
  ScopedFlopCounter scope(&mine);
  std::thread t([&] {
    EXPECT_EQ(CurrentFlopCounter(), nullptr);
    ScopedFlopCounter s(&theirs);
    CountMatmul(3, 3, 3);
  });
  t.join();
  CountMatmul(1, 1, 1);
  EXPECT_EQ(mine.total(), 2);
  EXPECT_EQ(theirs.total(), 54);
}

// A bias-free linear layer stack h_{i+1} = h_i @ W_i with x: (tokens, d), W_i: (d, d). The
// "ops" here are matmuls that report themselves, as model code does; the math is not needed to
// count FLOPs, so the shapes alone are issued.
struct LinearStack {
  int layers, tokens, d;
  void Forward() const {
    for (int i = 0; i < layers; ++i) CountMatmul(tokens, d, d, "forward");
  }
  // Backward: each layer's weight gradient dW = h^T @ dy (d x tokens x d), and the input gradient
  // dh = dy @ W^T (tokens x d x d) except for the first layer when the input needs no gradient.
  void Backward(bool input_needs_grad) const {
    for (int i = layers - 1; i >= 0; --i) {
      CountMatmul(d, tokens, d, "backward-weight");
      if (i > 0 || input_needs_grad) CountMatmul(tokens, d, d, "backward-input");
    }
  }
};

TEST(FlopCounter, BackwardIsTwiceForwardOrOnePointFiveWithoutInputGrad) {
  LinearStack net{/*layers=*/2, /*tokens=*/64, /*d=*/256};
  for (bool input_grad : {true, false}) {
    FlopCounter fwd, bwd;
    {
      ScopedFlopCounter s(&fwd);
      net.Forward();
    }
    {
      ScopedFlopCounter s(&bwd);
      net.Backward(input_grad);
    }
    EXPECT_DOUBLE_EQ(bwd.total() / fwd.total(), input_grad ? 2.0 : 1.5);
  }
}

TEST(FlopCounter, SixNDOnAnEightLayerStack) {
  LinearStack net{/*layers=*/8, /*tokens=*/512, /*d=*/256};
  FlopCounter c;
  {
    ScopedFlopCounter s(&c);
    net.Forward();
    net.Backward(/*input_needs_grad=*/false);
  }
  const double params = 8.0 * 256 * 256;
  const double ratio = c.total() / (params * net.tokens);
  // (8 fwd + 8 weight-grad + 7 input-grad) * 2 / 8 = 5.75: "close to 6, slightly below".
  EXPECT_DOUBLE_EQ(ratio, 5.75);
  EXPECT_LT(ratio, 6.0);
}

}  // namespace
}  // namespace accounting
