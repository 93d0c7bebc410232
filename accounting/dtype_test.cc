// Dtype names, parsing and sizes.
#include "accounting/dtype.h"

#include "gtest/gtest.h"

namespace accounting {
namespace {

TEST(Dtype, NamesRoundTrip) {
  for (Dtype d : {Dtype::kFp32, Dtype::kTf32, Dtype::kBf16, Dtype::kFp16, Dtype::kFp8}) {
    absl::StatusOr<Dtype> parsed = ParseDtype(DtypeName(d));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, d);
  }
  EXPECT_EQ(*ParseDtype("BF16"), Dtype::kBf16);
  EXPECT_EQ(*ParseDtype("bfloat16"), Dtype::kBf16);
}

TEST(Dtype, UnknownNameNamesValueAndAllowedSet) {
  absl::StatusOr<Dtype> d = ParseDtype("int8");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("'int8'"), std::string::npos) << d.status();
  EXPECT_NE(d.status().message().find("fp32, tf32, bf16, fp16, fp8"), std::string::npos);
}

TEST(Dtype, BytesPerElement) {
  EXPECT_EQ(BytesPerElement(Dtype::kFp32), 4);
  EXPECT_EQ(BytesPerElement(Dtype::kTf32), 4);
  EXPECT_EQ(BytesPerElement(Dtype::kBf16), 2);
  EXPECT_EQ(BytesPerElement(Dtype::kFp16), 2);
  EXPECT_EQ(BytesPerElement(Dtype::kFp8), 1);
}

}  // namespace
}  // namespace accounting
