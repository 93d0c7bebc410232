// The page from a run with awkward input: one table row per case, NaN and missing counters
// shown as dashes (never "nan"), every section present, the problems listed, the SVG clean.
#include "tools/report/html_page.h"

#include <regex>
#include <set>

#include "gtest/gtest.h"
#include "tools/report/input_loader.h"
#include "tools/report/report.h"

namespace report {
namespace {

// Five cases: a complete matmul, one whose FLOP/s is NaN in every repetition, one without
// bytes, one with no counters at all, one that errored. Google Benchmark writes NaN bare.
constexpr char kRun[] = R"json({
  "context": {"cpu_model": "AMD EPYC 9R14", "num_cpus": 2, "mhz_per_cpu": 3700,
              "compile_flags": "-O3 -march=native (+ command-line --copt; compiler targeted AVX-512F)",
              "date": "2026-11-30T10:00:00+00:00"},
  "benchmarks": [
    {"name": "BM_Matmul/cpu/fp32/M:512/K:512/N:512/manual_time", "run_type": "iteration", "real_time": 1.5,
     "time_unit": "ms", "FLOP/s": 1.79e11, "bytes/s": 2.1e9, "intensity": 85.3, "peak_FLOP/s": 2.35e11,
     "peak_bytes/s": 3.1e10, "pct_of_peak": 76.2, "pct_of_roofline": 76.2, "verified": 1,
     "label": "peak: measured at start-up: AVX-512 FMA loop x2 threads 235 GFLOP/s, STREAM copy 31 GB/s"},
    {"name": "BM_Matmul/cpu/fp32/M:64/K:64/N:64/manual_time", "run_type": "iteration", "real_time": NaN,
     "time_unit": "us", "FLOP/s": NaN, "bytes/s": Infinity, "intensity": NaN, "pct_of_peak": -NaN, "verified": 1},
    {"name": "BM_GptStep/gpt2/cpu/fp32/B:4/T:64/iterations:10/manual_time", "run_type": "iteration",
     "real_time": 250, "time_unit": "ms", "flops_per_second": 1.4e11, "mfu": 0.6, "verified": 1},
    {"name": "BM_Nothing/x", "run_type": "iteration", "real_time": 3, "time_unit": "ns"},
    {"name": "BM_Elementwise/cuda/gelu/N:65536", "error_occurred": true, "error_message": "no CUDA device: <none>"}
  ]
})json";

std::string Section(const std::string& html, const std::string& begin, const std::string& end) {
  size_t a = html.find(begin);
  if (a == std::string::npos) return "";
  size_t b = html.find(end, a);
  return html.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

Report Build() {
  RunLoader loader;
  EXPECT_TRUE(loader.AddText(kRun, "run.json").ok());
  ReportInputs in;
  in.data = loader.Finish();
  in.command = "report --in=run.json --out=x";
  return BuildReport(in);
}

TEST(HtmlPage, OneRowPerCase) {
  Report r = Build();
  const std::string& html = r.files.at("index.html");
  const std::string table = Section(html, "<table class=\"cases sortable\" id=\"case-table\">", "</table>");
  ASSERT_FALSE(table.empty());
  std::regex row("<tr class=\"case-row\" data-case=\"([^\"]*)\">");
  std::set<std::string> names;
  int rows = 0;
  for (auto it = std::sregex_iterator(table.begin(), table.end(), row); it != std::sregex_iterator(); ++it) {
    ++rows;
    names.insert((*it)[1]);
  }
  EXPECT_EQ(rows, 5);
  EXPECT_EQ(names,
            (std::set<std::string>{"BM_Matmul/cpu/fp32/M:512/K:512/N:512",
                                   "BM_Matmul/cpu/fp32/M:64/K:64/N:64", "BM_GptStep/gpt2/cpu/fp32/B:4/T:64",
                                   "BM_Nothing/x", "BM_Elementwise/cuda/gelu/N:65536"}));
  // Every row has as many cells as the header has columns.
  const std::regex th("<th "), td("<td[ >]");
  const int columns = static_cast<int>(
      std::distance(std::sregex_iterator(table.begin(), table.end(), th), std::sregex_iterator()));
  const int cells = static_cast<int>(
      std::distance(std::sregex_iterator(table.begin(), table.end(), td), std::sregex_iterator()));
  EXPECT_EQ(columns, 11);
  EXPECT_EQ(cells, rows * columns);
}

TEST(HtmlPage, NaNAndMissingCountersDoNotBreakThePage) {
  Report r = Build();
  const std::string& html = r.files.at("index.html");
  const std::string table = Section(html, "<table class=\"cases sortable\" id=\"case-table\">", "</table>");
  // No non-finite value reaches the table's text or its sort keys.
  std::regex nonfinite("(>|data-v=\")-?(nan|inf|infinity)\\b", std::regex::icase);
  EXPECT_FALSE(std::regex_search(table, nonfinite)) << table;
  // The NaN case's row shows dashes for its numbers and sorts them last (empty data-v).
  const std::string nan_row = Section(table, "data-case=\"BM_Matmul/cpu/fp32/M:64/K:64/N:64\"", "</tr>");
  ASSERT_FALSE(nan_row.empty());
  EXPECT_NE(nan_row.find("<td class=\"num\" data-v=\"\">\xe2\x80\x94</td>"), std::string::npos) << nan_row;
  EXPECT_NE(nan_row.find(">yes<"), std::string::npos);
  // The good case keeps its numbers; the errored one says so.
  EXPECT_NE(table.find("179 GFLOP/s"), std::string::npos);
  EXPECT_NE(table.find("76.2%"), std::string::npos);
  EXPECT_NE(table.find("title=\"no CUDA device: &lt;none&gt;\">error<"), std::string::npos);
  // The problems are listed on the page.
  const std::string problems = Section(html, "<section class=\"problems\"", "</section>");
  EXPECT_NE(problems.find("counter &#39;FLOP/s&#39; is not finite"), std::string::npos) << problems;
  EXPECT_NE(problems.find("BM_GptStep/gpt2/cpu/fp32/B:4/T:64: no bytes counter"), std::string::npos);
  EXPECT_NE(problems.find("BM_Nothing/x: no counters"), std::string::npos);
  EXPECT_NE(problems.find("did not run: no CUDA device"), std::string::npos);
  // Every section is there, absent charts say why.
  for (const char* id : {"id=\"machine\"", "id=\"roofline\"", "id=\"sweep-section\"", "id=\"steps-section\"",
                         "id=\"mfu-section\"", "id=\"cases\""}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  EXPECT_NE(html.find("No step times: the gpt_step run has no per-step times"), std::string::npos);
  EXPECT_NE(html.find("No MFU loss breakdown in the input"), std::string::npos);
  EXPECT_NE(html.find("AVX-512F"), std::string::npos);  // the ISA, from the context
  // Self-contained: nothing to fetch.
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);
  // No chart contains a non-finite coordinate, and no element names an attribute twice
  // (a standalone SVG file is XML: a repeated attribute makes it unreadable).
  const std::regex tag("<[a-zA-Z]+((?:\\s+[a-zA-Z:-]+=\"[^\"]*\")*)\\s*/?>");
  const std::regex attr("([a-zA-Z:-]+)=\"");
  for (const auto& [name, text] : r.files) {
    if (name == "index.html") continue;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), tag); it != std::sregex_iterator(); ++it) {
      const std::string attrs = (*it)[1];
      std::set<std::string> seen;
      for (auto a = std::sregex_iterator(attrs.begin(), attrs.end(), attr); a != std::sregex_iterator();
           ++a) {
        EXPECT_TRUE(seen.insert((*a)[1]).second)
            << name << ": attribute " << (*a)[1] << " twice in " << (*it)[0];
      }
    }
  }
  for (const auto& [name, text] : r.files) {
    EXPECT_FALSE(std::regex_search(text, std::regex("=\"[^\"]*\\b-?(nan|inf)\\b", std::regex::icase)))
        << name;
  }
  EXPECT_EQ(r.files.count("matmul_sweep.svg"), 1u);
  EXPECT_EQ(r.files.count("steps.svg"), 0u);
}

TEST(HtmlPage, GateColumnAndSection) {
  RunLoader loader;
  ASSERT_TRUE(loader.AddText(kRun, "run.json").ok());
  ReportInputs in;
  in.data = loader.Finish();
  auto g = ParseGateSummary(
      "## Performance gate: passed\n- machine key: `k`\n\n| status | case | baseline | current | change | p "
      "| p raw | note |\n"
      "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n"
      "| SAME | `BM_Matmul/cpu/fp32/M:512/K:512/N:512/manual_time` | 1.5 ms | 1.5 ms | +0.1% | 0.5 | 0.5 |  "
      "|\n",
      "gate.md");
  ASSERT_TRUE(g.ok());
  in.gate = *g;
  Report r = BuildReport(in);
  const std::string& html = r.files.at("index.html");
  EXPECT_NE(html.find("<section id=\"gate\"><h2>Performance gate: passed</h2>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"badge s-SAME\">SAME</span>"), std::string::npos);
  EXPECT_NE(html.find("not in the gate"), std::string::npos);
}

}  // namespace
}  // namespace report
