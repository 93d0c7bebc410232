// StepSeriesLog and AddStepSeriesToJson: series land on their case and repetition; NaN
// counters and other entries survive the rewrite unchanged.
#include "macro/step_series.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace macro {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What Google Benchmark 1.7.1 writes for two gpt_step cases, two repetitions of the first
// (plus its aggregate), and a NaN counter.
constexpr char kRun[] = R"({
  "context": {"date": "2026-11-30T10:00:00+00:00", "mlbench_device": "cpu"},
  "benchmarks": [
    {"name": "BM_GptStep/t/cpu/fp32/B:2/T:8/data:random/iterations:3/manual_time",
     "run_name": "BM_GptStep/t/cpu/fp32/B:2/T:8/data:random/iterations:3/manual_time",
     "run_type": "iteration", "repetition_index": 0, "real_time": 1.5, "loss": NaN},
    {"name": "BM_GptStep/t/cpu/fp32/B:2/T:8/data:random/iterations:3/manual_time",
     "run_name": "BM_GptStep/t/cpu/fp32/B:2/T:8/data:random/iterations:3/manual_time",
     "run_type": "iteration", "repetition_index": 1, "real_time": 1.4, "loss": 4.1},
    {"name": "BM_GptStep/t/cpu/fp32/B:2/T:8/data:random/iterations:3/manual_time_median",
     "run_name": "BM_GptStep/t/cpu/fp32/B:2/T:8/data:random/iterations:3/manual_time",
     "run_type": "aggregate", "aggregate_name": "median", "real_time": 1.45},
    {"name": "BM_GptStep/t/cpu/fp32/B:2/T:8/data:real/iterations:3/manual_time",
     "run_name": "BM_GptStep/t/cpu/fp32/B:2/T:8/data:real/iterations:3/manual_time",
     "run_type": "iteration", "repetition_index": 0, "real_time": 1.6, "loss": -Infinity}
  ]
})";

TEST(StepSeries, LandsOnItsCaseAndRepetition) {
  StepSeriesLog log;
  log.SetCaseName(0, "BM_GptStep/t/cpu/fp32/B:2/T:8/data:random");
  log.SetCaseName(1, "BM_GptStep/t/cpu/fp32/B:2/T:8/data:real");
  log.BeginRepetition(0);
  log.AddWarmup(0.009);
  log.AddTimed(0.0015);
  log.AddTimed(0.0016);
  log.AddTimed(0.0014);
  log.BeginRepetition(0);
  log.AddTimed(0.0013);
  log.AddTimed(0.0014);
  log.AddTimed(0.0015);
  log.BeginRepetition(1);
  log.AddTimed(0.002);
  ASSERT_EQ(log.records().size(), 3u);
  EXPECT_EQ(log.records()[1].repetition, 1);
  EXPECT_EQ(log.records()[2].repetition, 0);

  const std::string path = TempPath("run.json");
  { std::ofstream(path) << kRun; }
  ASSERT_TRUE(AddStepSeriesToJson(path, log).ok());
  const std::string text = ReadAll(path);
  // Non-finite counters are written back as Google Benchmark wrote them.
  EXPECT_NE(text.find("\"loss\": NaN"), std::string::npos) << text;
  EXPECT_NE(text.find("\"loss\": -Infinity"), std::string::npos) << text;

  std::string parsable = text;
  for (const char* t : {"-Infinity", "NaN"}) {
    for (size_t at; (at = parsable.find(t)) != std::string::npos;)
      parsable.replace(at, std::string(t).size(), "null");
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(parsable);
  const auto& b = j["benchmarks"];
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0]["step_times_s"]["warmup"], nlohmann::ordered_json({0.009}));
  EXPECT_EQ(b[0]["step_times_s"]["timed"], nlohmann::ordered_json({0.0015, 0.0016, 0.0014}));
  EXPECT_EQ(b[1]["step_times_s"]["warmup"], nlohmann::ordered_json::array());
  EXPECT_EQ(b[1]["step_times_s"]["timed"], nlohmann::ordered_json({0.0013, 0.0014, 0.0015}));
  EXPECT_FALSE(b[2].contains("step_times_s"));  // aggregates get none
  EXPECT_EQ(b[3]["step_times_s"]["timed"], nlohmann::ordered_json({0.002}));
  // Key order and other fields are kept.
  EXPECT_EQ(b[0].begin().key(), "name");
  EXPECT_EQ(j["context"]["mlbench_device"], "cpu");
}

TEST(StepSeries, ErrorsNameTheFile) {
  StepSeriesLog log;
  auto missing = AddStepSeriesToJson(TempPath("does_not_exist.json"), log);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("does_not_exist.json"), std::string::npos);
  const std::string path = TempPath("not_a_run.json");
  { std::ofstream(path) << "{\"x\": 1}"; }
  auto bad = AddStepSeriesToJson(path, log);
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("not_a_run.json"), std::string::npos);
}

}  // namespace
}  // namespace macro
