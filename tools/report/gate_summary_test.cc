// ParseGateSummary reads what tools/gate's own FormatMarkdown writes (not a copy of it).
#include "tools/report/gate_summary.h"

#include "gtest/gtest.h"
#include "tools/gate/gate_compare.h"
#include "tools/gate/gate_report.h"

namespace report {
namespace {

// A compared case with the fields every row of the table prints.
gate::CaseResult Case(const std::string& name, gate::CaseStatus status, double baseline_median,
                      double current_median, double p_value) {
  gate::CaseResult c;
  c.name = name;
  c.status = status;
  c.baseline_median = baseline_median;
  c.current_median = current_median;
  c.p_value = p_value;
  return c;
}

std::string GateMarkdown() {
  gate::ReportHeader h;
  h.key = "amd-epyc-9r14_x2_avx512";
  h.suite = "quick";
  h.baseline_path = "tools/gate/baselines/quick.json";
  h.baseline_exists = true;
  h.metric = "real_time";
  h.update_command = "bazel run //tools:gate -- --current=/tmp/run.json --update";
  gate::Comparison cmp;
  gate::CaseResult a = Case("BM_Matmul/cpu/fp32/M:256/K:256/N:256/min_time:0.010/manual_time",
                            gate::CaseStatus::kRegressed, 1e-3, 1.3e-3, 0.001);
  a.change = 0.3;
  a.exact = true;
  gate::CaseResult b =
      Case("BM_Elementwise/cpu/gelu/N:65536/min_time:0.010", gate::CaseStatus::kSame, 2e-5, 2e-5, 0.5);
  b.note = "3 repetitions: too few";
  cmp.cases = {a, b};
  cmp.compared = 2;
  cmp.warnings = {"the machine was busy"};
  return gate::FormatMarkdown(h, cmp, /*metric_is_time=*/true);
}

TEST(GateSummary, ReadsToolsGateMarkdown) {
  const std::string md = GateMarkdown();
  auto g = ParseGateSummary(md, "run.gate.md");
  ASSERT_TRUE(g.ok()) << g.status() << "\n" << md;
  EXPECT_EQ(g->verdict, "1 regression(s)");
  ASSERT_EQ(g->rows.size(), 2u) << md;
  EXPECT_EQ(g->rows[0].status, "REGRESSED");  // bold markers stripped
  EXPECT_EQ(g->rows[0].case_name, "BM_Matmul/cpu/fp32/M:256/K:256/N:256/min_time:0.010/manual_time");
  EXPECT_EQ(g->rows[0].change, "+30.0%");
  EXPECT_EQ(g->rows[1].status, "SAME");
  bool has_key = false;
  for (const std::string& d : g->details) has_key |= d.find("amd-epyc-9r14_x2_avx512") != std::string::npos;
  EXPECT_TRUE(has_key);
  EXPECT_EQ(GateStatusOf(*g, "BM_Matmul/cpu/fp32/M:256/K:256/N:256/min_time:0.010/manual_time"), "REGRESSED");
  // Matching ignores Google Benchmark's run suffixes.
  EXPECT_EQ(GateStatusOf(*g, "BM_Elementwise/cpu/gelu/N:65536"), "SAME");
  EXPECT_EQ(GateStatusOf(*g, "BM_Other"), "");
}

TEST(GateSummary, ErrorsNameTheFile) {
  auto no_heading = ParseGateSummary("| status | case |\n| --- | --- |\n", "x.md");
  ASSERT_FALSE(no_heading.ok());
  EXPECT_NE(no_heading.status().message().find("'x.md' is not a tools/gate summary"), std::string::npos);
  auto no_table = ParseGateSummary("## Performance gate: passed\n- machine key: `k`\n", "y.md");
  ASSERT_FALSE(no_table.ok());
  EXPECT_NE(no_table.status().message().find("y.md"), std::string::npos);
  EXPECT_FALSE(ReadGateSummary("/nonexistent/gate.md").ok());
}

}  // namespace
}  // namespace report
