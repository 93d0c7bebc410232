// NameOf, ValueOf and JoinNames over a small table, including the values and names it lacks.
#include "model/enum_names.h"

#include "gtest/gtest.h"

namespace model {
namespace {

enum class Fruit { kApple, kPear, kPlum };

// kPlum is left out on purpose: a value without a name.
constexpr EnumName<Fruit> kFruits[] = {{Fruit::kApple, "apple"}, {Fruit::kPear, "pear"}};

TEST(EnumNames, NamesAndValuesRoundTrip) {
  for (const EnumName<Fruit>& f : kFruits) {
    EXPECT_STREQ(NameOf(kFruits, f.value), f.name);
    EXPECT_EQ(ValueOf(kFruits, f.name), f.value) << f.name;
  }
}

TEST(EnumNames, UnknownValuesAndNames) {
  EXPECT_STREQ(NameOf(kFruits, Fruit::kPlum), "?");
  EXPECT_EQ(ValueOf(kFruits, "plum"), std::nullopt);
  EXPECT_EQ(ValueOf(kFruits, "Apple"), std::nullopt);  // names match exactly
  EXPECT_EQ(ValueOf(kFruits, ""), std::nullopt);
}

TEST(EnumNames, JoinsTheNamesInTableOrder) {
  EXPECT_EQ(JoinNames(kFruits), "apple, pear");
  EXPECT_EQ(JoinNames(kFruits, " or "), "apple or pear");
}

}  // namespace
}  // namespace model
