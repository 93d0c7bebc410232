// Tests OpTrace: nesting and self time, the summary, and the Chrome trace file.
#include "macro/op_trace.h"

#include <cstdio>
#include <fstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace macro {
namespace {

TEST(OpTraceTest, SelfTimeSubtractsDirectChildren) {
  OpTrace t;
  t.Begin("forward", "phase", 0);
  t.Begin("matmul", "op", 10);
  t.End(40);  // matmul 30
  t.Begin("layernorm", "op", 40);
  t.Begin("inner", "op", 42);
  t.End(45);   // inner 3
  t.End(50);   // layernorm 10, self 7
  t.End(100);  // forward 100, self 60
  ASSERT_EQ(t.spans().size(), 4u);
  EXPECT_DOUBLE_EQ(t.spans()[0].self_us(), 60);
  EXPECT_DOUBLE_EQ(t.spans()[1].self_us(), 30);
  EXPECT_DOUBLE_EQ(t.spans()[2].self_us(), 7);
  EXPECT_EQ(t.spans()[3].depth, 2);
  EXPECT_EQ(t.open_spans(), 0);
}

TEST(OpTraceTest, TopBySelfTimeSumsCallsAndSorts) {
  OpTrace t;
  t.Begin("a", "op", 0);
  t.End(5);
  t.Begin("b", "op", 5);
  t.End(25);
  t.Begin("a", "op", 25);
  t.End(30);
  t.Begin("p", "phase", 30);
  t.End(1000);  // other category: ignored
  auto top = t.TopBySelfTime("op", 10);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].name, "b");
  EXPECT_EQ(top[1].name, "a");
  EXPECT_EQ(top[1].calls, 2);
  EXPECT_DOUBLE_EQ(top[1].self_us, 10);
  EXPECT_NEAR(top[0].share + top[1].share, 1.0, 1e-12);
  EXPECT_EQ(t.TopBySelfTime("op", 1).size(), 1u);
}

TEST(OpTraceTest, UnmatchedEndIsCountedNotFatal) {
  OpTrace t;
  t.End(3);
  EXPECT_EQ(t.unmatched_ends(), 1);
  EXPECT_TRUE(t.spans().empty());
}

TEST(OpTraceTest, WritesLoadableChromeTrace) {
  OpTrace t;
  t.Begin("step", "step", 0);
  t.Begin("matmul", "op", 1);
  t.End(2);
  t.End(3);
  std::string path = std::string(getenv("TEST_TMPDIR")) + "/trace.json";
  ASSERT_TRUE(t.WriteChromeTrace(path, "gpt_step test").ok());
  std::ifstream f(path);
  nlohmann::json doc = nlohmann::json::parse(f);
  ASSERT_TRUE(doc.contains("traceEvents"));
  int complete = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X") {
      ++complete;
      EXPECT_TRUE(e.contains("ts") && e.contains("dur") && e.contains("name"));
    }
  }
  EXPECT_EQ(complete, 2);
  EXPECT_FALSE(std::ifstream(path + ".tmp").good());  // no temp left behind
}

TEST(OpTraceTest, UnwritablePathIsAnErrorNamingIt) {
  OpTrace t;
  absl::Status s = t.WriteChromeTrace("/nonexistent_dir/trace.json", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent_dir/trace.json"), std::string::npos);
}

}  // namespace
}  // namespace macro
