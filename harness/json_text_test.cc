// RewriteOutsideJsonStrings: replacements only outside string literals, escaped quotes kept
// inside them, and the replaced length skipped.
#include "harness/json_text.h"

#include "gtest/gtest.h"

namespace harness {
namespace {

// Replaces each bare "ab" by "<X>".
size_t AbToX(const std::string& text, size_t i, std::string* out) {
  if (text.compare(i, 2, "ab") != 0) return 0;
  *out += "<X>";
  return 2;
}

TEST(RewriteOutsideJsonStrings, OnlyOutsideStrings) {
  EXPECT_EQ(RewriteOutsideJsonStrings(R"({"ab": ab, "c": "x ab"})", AbToX), R"({"ab": <X>, "c": "x ab"})");
  EXPECT_EQ(RewriteOutsideJsonStrings(R"(["q \" ab", ab])", AbToX), R"(["q \" ab", <X>])");
  EXPECT_EQ(RewriteOutsideJsonStrings("abab a b", AbToX), "<X><X> a b");
  EXPECT_EQ(RewriteOutsideJsonStrings("", AbToX), "");
  // A lone backslash at the very end of an unterminated string is copied.
  EXPECT_EQ(RewriteOutsideJsonStrings("\"ab\\", AbToX), "\"ab\\");
}

}  // namespace
}  // namespace harness
