#include "harness/json_doc.h"

#include "gtest/gtest.h"

namespace harness {
namespace {

TEST(JsonDocTest, ParsesAndDumpsRoundTrip) {
  const nlohmann::json j = ParseJson(R"({"a": [1, 2.5, "x"], "b": {"c": null}})");
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["a"][1].get<double>(), 2.5);
  EXPECT_EQ(DumpJson(j), R"({"a":[1,2.5,"x"],"b":{"c":null}})");
  EXPECT_EQ(DumpJson(nlohmann::json{{"k", 1}}, 2), "{\n  \"k\": 1\n}");
}

TEST(JsonDocTest, OrderedKeepsTheDocumentsKeyOrder) {
  const nlohmann::ordered_json j = ParseOrderedJson(R"({"z": 1, "a": 2})");
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(DumpJson(j), R"({"z":1,"a":2})");
  EXPECT_TRUE(ParseOrderedJson("[1,").is_discarded());
}

TEST(JsonDocTest, NotOneDocumentIsDiscarded) {
  EXPECT_TRUE(ParseJson("").is_discarded());
  EXPECT_TRUE(ParseJson("{\"a\": ").is_discarded());
  EXPECT_TRUE(ParseJson("{} {}").is_discarded());
  EXPECT_TRUE(ParseJson("NaN").is_discarded());
}

}  // namespace
}  // namespace harness
