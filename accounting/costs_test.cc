// Matmul and elementwise FLOPs/bytes and arithmetic intensity.
#include "accounting/costs.h"

#include "gtest/gtest.h"

namespace accounting {
namespace {

TEST(Costs, MatmulFlopsCountAMultiplyAddAsTwo) {
  EXPECT_EQ(MatmulFlops(1, 1, 1), 2);
  EXPECT_EQ(MatmulFlops(2, 3, 4), 48);
  // No int overflow for large shapes: 65536^3 * 2 = 5.6e14.
  EXPECT_DOUBLE_EQ(MatmulFlops(65536, 65536, 65536), 2.0 * 65536.0 * 65536.0 * 65536.0);
}

TEST(Costs, MatmulBytesReadEachInputOnceWriteOutputOnce) {
  // (4x8)@(8x2): a 32 + b 16 + c 8 = 56 elements.
  EXPECT_EQ(MatmulBytes(4, 8, 2, 4), 56 * 4);
  EXPECT_EQ(MatmulBytes(4, 8, 2, 2), 56 * 2);
}

TEST(Costs, SquareMatmulIntensityGrowsWithSize) {
  // n^3 * 2 / (3 n^2 * 2 bytes) = n / 3 in bf16.
  for (int64_t n : {64, 1024, 4096}) {
    EXPECT_DOUBLE_EQ(ArithmeticIntensity(MatmulFlops(n, n, n), MatmulBytes(n, n, n, 2)), n / 3.0);
  }
}

TEST(Costs, ElementwiseBytes) {
  // c = a + b on 1000 bf16: read 2, write 1.
  EXPECT_EQ(ElementwiseBytes(1000, 2, 1, 2), 6000);
  EXPECT_EQ(ArithmeticIntensity(1, 0), 0);
}

}  // namespace
}  // namespace accounting
