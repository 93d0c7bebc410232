#include "tools/sweep/sweep_output.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tools/sweep/sweep_summary.h"

namespace sweep {
namespace {

// Two planned points (not resolved: the names need only preset, dtype, B, T and the device).
std::vector<PlannedPoint> Planned() {
  std::vector<PlannedPoint> planned(3);
  const int batches[] = {1, 2, 4};
  for (int i = 0; i < 3; ++i) {
    planned[i].point = SweepPoint{"gpt2", "fp32", "none", batches[i], 32};
    planned[i].options.device = "cpu";
  }
  planned[2].refused = "not enough host memory: needs 9.00 GB, 1.00 GB available";
  return planned;
}

// What gpt_step writes with --benchmark_out: one entry, the run context in the context.
std::string GptStepJson(double ms, double mfu, double predicted_ms) {
  nlohmann::json rc = {{"build", {{"asserts", false}, {"commit", "abc"}, {"compilation_mode", "opt"},
                                  {"compiler", "g++ 12.2.0"}, {"target_isa", "AVX2"}}},
                       {"cpu", {{"family", 25}, {"isa_flags", "AVX2 FMA"}, {"isa_level", "AVX2"},
                                {"logical_cpus", 2}, {"memory_gib", 24.0}, {"model", 1},
                                {"model_name", "AMD EPYC"}, {"physical_cores", 2}, {"stepping", 1},
                                {"vendor", "AuthenticAMD"}}},
                       {"gemm", nlohmann::json::array()},
                       {"gpu", {{"count", 0}, {"name", "none"}, {"driver", "none"}}}};
  nlohmann::json doc = {
      {"context", {{"mlbench_run_context", rc.dump()}, {"mlbench_cpu", "AMD EPYC"}}},
      {"benchmarks",
       {{{"name", "BM_GptStep/gpt2/cpu/fp32/B:1/T:32/iterations:3/manual_time"},
         {"run_type", "iteration"},
         {"real_time", ms},
         {"time_unit", "ms"},
         {"ms_per_step", ms},
         {"mfu", mfu},
         {"predicted_ms", predicted_ms},
         {"predicted_gemm_ms", 0.7 * predicted_ms},
         {"predicted_attention_ms", 0.01 * predicted_ms},
         {"predicted_memory_ops_ms", 0.04 * predicted_ms},
         {"predicted_adamw_ms", 0.25 * predicted_ms},
         {"mem_peak_bytes_measured", 2.6e9},
         {"mem_peak_bytes", 2.8e9}}}}};
  return doc.dump();
}

TEST(SweepOutput, RenamesEachRunAndCarriesItsCounters) {
  SweepOutput out(Planned(), 2, {{"command", "sweep"}});
  auto f = out.AddRun(0, 0, GptStepJson(300, 0.40, 280));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_DOUBLE_EQ(f->ms_per_step, 300);
  EXPECT_DOUBLE_EQ(f->predicted_ms, 280);
  ASSERT_TRUE(out.AddRun(0, 1, GptStepJson(320, 0.38, 280)).ok());
  ASSERT_TRUE(out.AddRun(1, 0, GptStepJson(500, 0.45, 480)).ok());
  const nlohmann::json doc = nlohmann::json::parse(out.Json());
  ASSERT_EQ(doc["benchmarks"].size(), 3u);
  const nlohmann::json& e = doc["benchmarks"][1];
  EXPECT_EQ(e["name"], "BM_Sweep/gpt2/cpu/fp32/B:1/T:32/recompute:none");
  EXPECT_EQ(e["run_name"], e["name"]);
  EXPECT_EQ(e["repetitions"], 2);
  EXPECT_EQ(e["repetition_index"], 1);
  EXPECT_DOUBLE_EQ(e["mfu_min"].get<double>(), 0.38);  // over the point's runs so far
  EXPECT_DOUBLE_EQ(e["mfu_max"].get<double>(), 0.40);
  EXPECT_DOUBLE_EQ(doc["benchmarks"][2]["mfu_min"].get<double>(), 0.45);
  // The machine key is tools/gate's: 8 hex digits from the run context.
  const std::string key = doc["context"]["mlbench_machine_key"];
  EXPECT_EQ(key.size(), 8u);
  const nlohmann::json info = nlohmann::json::parse(doc["context"]["mlbench_sweep"].get<std::string>());
  EXPECT_EQ(info["format"], "mlbench-sweep/1");
  ASSERT_EQ(info["refused"].size(), 1u);
  EXPECT_EQ(info["refused"][0]["point"], "gpt2 fp32 B=4 T=32");
}

TEST(SweepOutput, AFailedRunIsAnErroredEntry) {
  SweepOutput out(Planned(), 1, nlohmann::json::object());
  EXPECT_FALSE(out.AddRun(0, 0, "not json").ok());
  EXPECT_FALSE(out.AddRun(0, 0, R"({"benchmarks": []})").ok());
  out.AddFailure(0, 0, "gpt_step exited 2: out of memory");
  const nlohmann::json doc = nlohmann::json::parse(out.Json());
  ASSERT_EQ(doc["benchmarks"].size(), 1u);
  EXPECT_EQ(doc["benchmarks"][0]["error_occurred"], true);
  EXPECT_EQ(out.failed(), 1);
  const nlohmann::json info = nlohmann::json::parse(doc["context"]["mlbench_sweep"].get<std::string>());
  EXPECT_EQ(info["failed"][0]["reason"], "gpt_step exited 2: out of memory");
}

TEST(SweepSummary, AMissBeyondTwentyFivePercentIsAFinding) {
  std::vector<PlannedPoint> planned = Planned();
  SweepOutput out(planned, 2, nlohmann::json::object());
  ASSERT_TRUE(out.AddRun(0, 0, GptStepJson(300, 0.40, 280)).ok());
  ASSERT_TRUE(out.AddRun(0, 1, GptStepJson(320, 0.38, 280)).ok());
  ASSERT_TRUE(out.AddRun(1, 0, GptStepJson(500, 0.45, 360)).ok());  // 28% below: 1.39x
  const std::vector<PointMedians> m = MediansByPoint(planned, out);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_DOUBLE_EQ(m[0].ms_per_step, 310);
  EXPECT_DOUBLE_EQ(m[0].mfu, 0.39);
  EXPECT_EQ(m[0].runs, 2);
  std::string all;
  for (const std::string& line : SummaryLines(planned, out)) absl::StrAppend(&all, line, "\n");
  EXPECT_NE(all.find("FINDING: the prediction misses by more than 25% at 1 point(s)"), std::string::npos) << all;
  EXPECT_NE(all.find("gpt2 fp32 B=2 T=32: the prediction is 28% below the measurement, which took 1.39x it"),
            std::string::npos)
      << all;
  EXPECT_EQ(all.find("gpt2 fp32 B=1 T=32: the prediction"), std::string::npos) << all;  // 10% below: within
  // MFU 39% at B*T = 32, 45% at 64: 39 < 0.9 x 45 = 40.5, so the knee is at 64.
  EXPECT_NE(all.find("knee: gpt2 fp32: B*T = 64 (B=2 T=32), MFU 45.00% = 100% of the best 45.00%"), std::string::npos)
      << all;
}

}  // namespace
}  // namespace sweep
