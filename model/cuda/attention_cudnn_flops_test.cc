// The FLOPs cuDNN's causal attention reports: the triangle, per tag, against a direct count.
#include <string>

#include "accounting/flop_counter.h"
#include "gtest/gtest.h"
#include "model/cuda/attention_cudnn.h"

namespace model {
namespace cuda {
namespace {

// 2 * HS flops per (query, key) pair with key <= query, per head and product: counted pair by
// pair here, not with the closed form the code uses.
double TriangleFlops(const AttentionShape& s) {
  double pairs = 0;
  for (int64_t q = 0; q < s.T; ++q) {
    for (int64_t k = 0; k <= q; ++k) pairs += 1;
  }
  return 2.0 * s.HS * pairs * s.B * s.NH;
}

// What count(s) reports to the FLOP counter in scope.
accounting::FlopCounter Counted(void (*count)(const AttentionShape&), const AttentionShape& s) {
  accounting::FlopCounter counter;
  accounting::ScopedFlopCounter scope(&counter);
  count(s);
  return counter;
}

TEST(CudnnAttentionFlops, ForwardCountsQkAndAvOverTheCausalTriangle) {
  const AttentionShape s{3, 17, 4, 8};
  const accounting::FlopCounter counter = Counted(CountCudnnAttentionForwardFlops, s);
  const double tri = TriangleFlops(s);
  EXPECT_DOUBLE_EQ(counter.by_tag().at("attention_qk"), tri);
  EXPECT_DOUBLE_EQ(counter.by_tag().at("attention_av"), tri);
  EXPECT_EQ(counter.by_tag().size(), 2u);
  EXPECT_DOUBLE_EQ(counter.matmul_total(), 2 * tri);
}

TEST(CudnnAttentionFlops, BackwardCountsFiveProductsIncludingTheRecompute) {
  const AttentionShape s{2, 9, 3, 16};
  const accounting::FlopCounter counter = Counted(CountCudnnAttentionBackwardFlops, s);
  const double tri = TriangleFlops(s);
  for (const char* tag :
       {"attention_qk_recompute", "attention_datt", "attention_dv", "attention_dq", "attention_dk"}) {
    EXPECT_DOUBLE_EQ(counter.by_tag().at(tag), tri) << tag;
  }
  EXPECT_DOUBLE_EQ(counter.matmul_total(), 5 * tri);
}

// About half the full T x T work: at GPT-2's T = 1024, (T + 1) / 2T of it.
TEST(CudnnAttentionFlops, AboutHalfOfTheFullSquare) {
  const AttentionShape s{12, 1024, 12, 64};
  const accounting::FlopCounter counter = Counted(CountCudnnAttentionForwardFlops, s);
  const double full = 2.0 * 2 * s.B * s.NH * double(s.T) * s.T * s.HS;  // q.k and p.v, every pair
  EXPECT_DOUBLE_EQ(counter.matmul_total() / full, 1025.0 / 2048.0);
}

}  // namespace
}  // namespace cuda
}  // namespace model
