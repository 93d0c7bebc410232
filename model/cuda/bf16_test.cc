// bf16 conversions on the host: exact widening, round-to-nearest-even narrowing, specials.
#include "model/cuda/bf16.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace model {
namespace cuda {
namespace {

TEST(Bf16, RepresentableValuesRoundTripExactly) {
  for (float x : {0.0f, -0.0f, 1.0f, -2.5f, 0.15625f, 3.0e38f, 1.0e-38f, 65280.0f}) {
    const float r = Bf16ToFloat(FloatToBf16(x));
    if (x == 3.0e38f || x == 1.0e-38f) continue;  // not exact in 8 bits: covered below
    EXPECT_EQ(r, x) << x;
  }
  EXPECT_EQ(FloatToBf16(1.0f).bits, 0x3F80);
  EXPECT_EQ(FloatToBf16(-2.0f).bits, 0xC000);
}

TEST(Bf16, RoundsToNearestEven) {
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to the even mantissa (1).
  EXPECT_EQ(Bf16ToFloat(FloatToBf16(1.0f + 0x1p-8f)), 1.0f);
  // 1 + 3*2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): goes up.
  EXPECT_EQ(Bf16ToFloat(FloatToBf16(1.0f + 3 * 0x1p-8f)), 1.0f + 0x1p-6f);
  // Just above a tie rounds up, just below rounds down.
  EXPECT_EQ(Bf16ToFloat(FloatToBf16(1.0f + 0x1p-8f + 0x1p-20f)), 1.0f + 0x1p-7f);
  EXPECT_EQ(Bf16ToFloat(FloatToBf16(1.0f + 0x1p-8f - 0x1p-20f)), 1.0f);
}

TEST(Bf16, RelativeErrorIsAtMostHalfAnUlp) {
  for (int i = 1; i < 2000; ++i) {
    const float x = std::sin(static_cast<float>(i)) * std::pow(10.0f, (i % 20) - 10);
    const float r = Bf16ToFloat(FloatToBf16(x));
    EXPECT_LE(std::fabs(r - x), std::fabs(x) * 0x1p-8f) << x;
  }
}

TEST(Bf16, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(Bf16ToFloat(FloatToBf16(inf)), inf);
  EXPECT_EQ(Bf16ToFloat(FloatToBf16(-inf)), -inf);
  EXPECT_TRUE(std::isnan(Bf16ToFloat(FloatToBf16(std::nanf("")))));
  // A NaN whose payload sits only in the low 16 bits must not become infinity.
  const float low_nan = BitsToFloat(0x7F800001u);
  EXPECT_TRUE(std::isnan(Bf16ToFloat(FloatToBf16(low_nan))));
  // The largest float is beyond bf16's largest finite value plus half an ulp: infinity.
  EXPECT_EQ(Bf16ToFloat(FloatToBf16(std::numeric_limits<float>::max())), inf);
}

TEST(Bf16, StorageHelpers) {
  EXPECT_EQ(ToFloat(FromFloat<float>(1.2345f)), 1.2345f);
  EXPECT_EQ(RoundThrough<float>(1.2345f), 1.2345f);
  EXPECT_EQ(RoundThrough<Bf16>(1.2345f), Bf16ToFloat(FloatToBf16(1.2345f)));
  EXPECT_NE(RoundThrough<Bf16>(1.2345f), 1.2345f);
}

}  // namespace
}  // namespace cuda
}  // namespace model
