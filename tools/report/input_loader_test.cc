// RunLoader: folding repetitions, counters vs fields, NaN tokens, step series, breakdowns,
// what is missing, and errors that name the file.
#include "tools/report/input_loader.h"

#include <cmath>

#include "gtest/gtest.h"

namespace report {
namespace {

const Case* Find(const RunData& d, const std::string& name) {
  for (const Case& c : d.cases) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

bool HasProblem(const RunData& d, const std::string& text) {
  for (const std::string& p : d.problems) {
    if (p.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(QuoteNonFiniteTokens, OnlyOutsideStrings) {
  EXPECT_EQ(QuoteNonFiniteTokens(R"({"a": NaN, "b": -Infinity, "c": "NaN in a string", "d": Infinity})"),
            R"({"a": "NaN", "b": "-Infinity", "c": "NaN in a string", "d": "Infinity"})");
  EXPECT_EQ(QuoteNonFiniteTokens(R"({"e": "quote \" NaN"})"), R"({"e": "quote \" NaN"})");
  EXPECT_EQ(QuoteNonFiniteTokens("[1.5e9, -2]"), "[1.5e9, -2]");
}

// tools/bench's shape: one entry per round, with mlbench_* fields.
constexpr char kBench[] = R"({
  "context": {"date": "2026-11-30", "num_cpus": 2, "cpu_model": "AMD EPYC 9R14",
              "caches": [{"type": "Data", "level": 1, "size": 32768, "num_sharing": 1}],
              "mlbench": {"suite": "quick", "cpu_model": "AMD EPYC 9R14"}},
  "benchmarks": [
    {"name": "BM_Matmul/cpu/fp32/M:256/K:256/N:256/min_time:0.010/manual_time",
     "run_name": "BM_Matmul/cpu/fp32/M:256/K:256/N:256/min_time:0.010/manual_time", "run_type": "iteration",
     "repetition_index": 0, "iterations": 100, "real_time": 300, "cpu_time": 290, "time_unit": "us",
     "FLOP/s": 1.0e11, "bytes/s": 2.0e9, "intensity": 42.67, "verified": 1, "mlbench_foreign_cpu": 0.02,
     "label": "peak: measured at start-up: AVX2 FMA loop x2 threads 235.0 GFLOP/s, STREAM copy 31.0 GB/s"},
    {"name": "BM_Matmul/cpu/fp32/M:256/K:256/N:256/min_time:0.010/manual_time",
     "run_name": "BM_Matmul/cpu/fp32/M:256/K:256/N:256/min_time:0.010/manual_time", "run_type": "iteration",
     "repetition_index": 1, "iterations": 100, "real_time": 200, "time_unit": "us",
     "FLOP/s": 1.5e11, "bytes/s": 3.0e9, "intensity": 42.67, "verified": 1},
    {"name": "BM_Matmul/cpu/fp32/M:256/K:256/N:256/min_time:0.010/manual_time",
     "run_name": "BM_Matmul/cpu/fp32/M:256/K:256/N:256/min_time:0.010/manual_time", "run_type": "iteration",
     "repetition_index": 2, "iterations": 100, "real_time": 250, "time_unit": "us",
     "FLOP/s": NaN, "bytes/s": 2.5e9, "intensity": 42.67, "verified": 0}
  ]
})";

TEST(RunLoader, FoldsRepetitionsIntoMedians) {
  RunLoader loader;
  ASSERT_TRUE(loader.AddText(kBench, "bench.json").ok());
  RunData d = loader.Finish();
  ASSERT_EQ(d.cases.size(), 1u);
  const Case& c = d.cases[0];
  EXPECT_EQ(c.repetitions, 3);
  EXPECT_EQ(c.family, "matmul cpu/fp32");
  ASSERT_TRUE(c.seconds.has_value());
  EXPECT_DOUBLE_EQ(*c.seconds, 250e-6);
  EXPECT_DOUBLE_EQ(*c.FlopsPerSecond(), 1.25e11);  // median of the finite ones
  EXPECT_DOUBLE_EQ(*c.BytesPerSecond(), 2.5e9);
  EXPECT_DOUBLE_EQ(*c.Verified(), 0);                      // one failed repetition fails the case
  EXPECT_EQ(c.counters.count("mlbench_foreign_cpu"), 0u);  // bench's fields are not counters
  EXPECT_EQ(c.counters.count("iterations"), 0u);
  EXPECT_EQ(c.PeakSource().rfind("measured at start-up", 0), 0u);
  EXPECT_TRUE(HasProblem(d, "counter 'FLOP/s' is not finite in some repetitions")) << d.problems[0];
  EXPECT_EQ(d.ContextValue("cpu_model"), "AMD EPYC 9R14");
  EXPECT_EQ(d.ContextValue("mlbench.suite"), "quick");
  EXPECT_EQ(d.ContextValue("caches"), "L1 Data 32 KiB (shared by 1)");
}

TEST(RunLoader, AggregatesOnlyWhenNoRepetitions) {
  RunLoader loader;
  ASSERT_TRUE(loader
                  .AddText(R"({"context": {}, "benchmarks": [
    {"name": "BM_X/a_mean", "run_name": "BM_X/a", "run_type": "aggregate", "aggregate_name": "mean",
     "real_time": 10, "time_unit": "ms", "FLOP/s": 5},
    {"name": "BM_X/a_median", "run_name": "BM_X/a", "run_type": "aggregate", "aggregate_name": "median",
     "real_time": 12, "time_unit": "ms", "FLOP/s": 6},
    {"name": "BM_X/a_stddev", "run_name": "BM_X/a", "run_type": "aggregate", "aggregate_name": "stddev",
     "real_time": 1, "time_unit": "ms", "FLOP/s": 0.1}]})",
                           "agg.json")
                  .ok());
  RunData d = loader.Finish();
  ASSERT_EQ(d.cases.size(), 1u);
  EXPECT_DOUBLE_EQ(*d.cases[0].seconds, 0.012);
  EXPECT_DOUBLE_EQ(*d.cases[0].FlopsPerSecond(), 6);
}

TEST(RunLoader, WhatIsMissingGoesToProblems) {
  RunLoader loader;
  ASSERT_TRUE(loader
                  .AddText(R"({"context": {"mlbench_cpu": "AMD EPYC"}, "benchmarks": [
    {"name": "BM_GptStep/gpt2/cpu/fp32/B:4/T:64/iterations:10/manual_time", "run_type": "iteration",
     "real_time": 250, "time_unit": "ms", "flops_per_second": 1.4e11, "mfu": 0.6, "verified": 1,
     "label": "gpt2 exact attention; peak: measured at start-up: AVX2 FMA 235 GFLOP/s",
     "step_times_s": {"warmup": [0.4, 0.3], "timed": [0.25, 0.26, null]},
     "mfu_breakdown": {"MFU": 60, "non-GEMM ops": 25, "optimizer": 10, "data": 2}},
    {"name": "BM_Plain/a", "real_time": 1, "time_unit": "ns"},
    {"name": "BM_Broken/a", "error_occurred": true, "error_message": "no CUDA device: none"}]})",
                           "gpt.json")
                  .ok());
  RunData d = loader.Finish();
  ASSERT_EQ(d.cases.size(), 3u);
  const Case* g = Find(d, "BM_GptStep/gpt2/cpu/fp32/B:4/T:64/iterations:10/manual_time");
  ASSERT_NE(g, nullptr);
  EXPECT_DOUBLE_EQ(*g->PctOfPeak(), 60);
  EXPECT_FALSE(g->Intensity().has_value());
  EXPECT_EQ(g->PeakSource(), "measured at start-up: AVX2 FMA 235 GFLOP/s");
  EXPECT_TRUE(HasProblem(d, "no bytes counter"));
  EXPECT_TRUE(HasProblem(d, "BM_Plain/a: no counters"));
  EXPECT_TRUE(HasProblem(d, "BM_Broken/a: did not run: no CUDA device"));
  EXPECT_TRUE(HasProblem(d, "add up to 97.0%"));
  ASSERT_EQ(d.steps.size(), 1u);
  EXPECT_EQ(d.steps[0].warmup_s.size(), 2u);
  ASSERT_EQ(d.steps[0].timed_s.size(), 3u);
  EXPECT_TRUE(std::isnan(d.steps[0].timed_s[2]));
  ASSERT_EQ(d.breakdowns.size(), 1u);
  ASSERT_EQ(d.breakdowns[0].parts.size(), 4u);
  EXPECT_EQ(d.breakdowns[0].parts[0].first, "MFU");  // the input's order, not sorted
  EXPECT_EQ(d.breakdowns[0].parts[3].first, "data");
}

TEST(RunLoader, BreakdownAsCountersOrContext) {
  RunLoader loader;
  ASSERT_TRUE(loader
                  .AddText(R"({"context": {"mfu_breakdown": "{\"MFU\": 50, \"rest\": 50}"}, "benchmarks": [
    {"name": "BM_GptStep/x/cpu/fp32/B:1/T:8", "mfu_breakdown/MFU": 40, "mfu_breakdown/other": 60,
     "flops_per_second": 1}]})",
                           "b.json")
                  .ok());
  RunData d = loader.Finish();
  ASSERT_EQ(d.breakdowns.size(), 2u);
  EXPECT_TRUE(d.breakdowns[0].case_name.empty());  // from the context
  EXPECT_EQ(d.breakdowns[1].parts[0].first, "MFU");
  EXPECT_DOUBLE_EQ(d.breakdowns[1].parts[1].second, 60);
  EXPECT_EQ(d.cases[0].counters.count("mfu_breakdown/MFU"), 0u);  // not a table counter
}

TEST(RunLoader, RunContextAndSkippedCases) {
  RunLoader loader;
  ASSERT_TRUE(loader
                  .AddText(R"({"context": {"mlbench_run_context":
      "{\"cpu\": {\"family\": 25, \"model\": 17, \"model_name\": \"AMD EPYC\", \"isa_flags\": \"AVX2 AVX-512F\"}, \"gemm\": [{\"name\": \"OpenBLAS\", \"kernel\": \"Cooperlake\"}]}"},
    "benchmarks": [
    {"name": "BM_Matmul/cuda/fp32/M:1/K:1/N:1", "error_occurred": true, "error_message": "skipped: no CUDA device: none"},
    {"name": "BM_Matmul/cuda/bf16/M:1/K:1/N:1", "error_occurred": true, "error_message": "skipped: no CUDA device: none"},
    {"name": "BM_Matmul/cpu/fp32/M:1/K:1/N:1", "error_occurred": true, "error_message": "incorrect: 12345 != 4"}]})",
                           "ctx.json")
                  .ok());
  RunData d = loader.Finish();
  EXPECT_EQ(d.ContextValue("run_context.cpu.family"), "25");
  EXPECT_EQ(d.ContextValue("run_context.cpu.isa_flags"), "AVX2 AVX-512F");
  EXPECT_EQ(d.ContextValue("run_context.gemm"), "name OpenBLAS, kernel Cooperlake");
  EXPECT_EQ(d.ContextValue("mlbench_run_context"), "");  // replaced by its keys
  ASSERT_EQ(d.cases.size(), 3u);
  EXPECT_TRUE(d.cases[0].Skipped());
  EXPECT_FALSE(d.cases[2].Skipped());
  EXPECT_TRUE(HasProblem(d, "2 cases skipped: no CUDA device: none (BM_Matmul/cuda/fp32/M:1/K:1/N:1, "));
  EXPECT_TRUE(HasProblem(d, "BM_Matmul/cpu/fp32/M:1/K:1/N:1: did not run: incorrect: 12345 != 4"));
}

TEST(RunLoader, ErrorsNameTheFile) {
  RunLoader loader;
  auto s = loader.AddText("{\"benchmarks\": [", "half.json");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'half.json' is not JSON"), std::string::npos) << s.message();
  s = loader.AddText("{\"peak_flops\": {\"fp32\": 1}}", "ceilings.json");
  EXPECT_NE(s.message().find("'ceilings.json' is JSON but not a Google Benchmark run"), std::string::npos)
      << s.message();
  auto missing = LoadRuns({"/nonexistent/run.json"});
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/run.json"), std::string::npos);
  EXPECT_FALSE(LoadRuns({}).ok());
}

TEST(RunLoader, FileWithoutCounters) {
  RunLoader loader;
  ASSERT_TRUE(
      loader
          .AddText(R"({"context": {}, "benchmarks": [{"name": "BM_A", "real_time": 5, "time_unit": "ns"}]})",
                   "plain.json")
          .ok());
  RunData d = loader.Finish();
  EXPECT_TRUE(HasProblem(d, "plain.json: no case has counters"));
}

}  // namespace
}  // namespace report
