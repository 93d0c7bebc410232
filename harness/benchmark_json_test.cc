#include "harness/benchmark_json.h"

#include <fstream>
#include <sstream>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace harness {
namespace {

TEST(BenchmarkJsonTest, ContextHasGoogleBenchmarksKeysAndTheRunContext) {
  const nlohmann::json c = BenchmarkContext("/bin/x");
  for (const char* key :
       {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled", "caches",
        "load_avg", "library_build_type", "mlbench_run_context", "mlbench_commit"}) {
    EXPECT_TRUE(c.contains(key)) << key;
  }
  EXPECT_EQ(c["executable"], "/bin/x");
  EXPECT_GE(c["num_cpus"].get<int>(), 1);
  // The run context is a JSON string, as AddRunContext writes it for Google Benchmark.
  const nlohmann::json rc = nlohmann::json::parse(c["mlbench_run_context"].get<std::string>());
  EXPECT_TRUE(rc.contains("cpu"));
  EXPECT_TRUE(rc.contains("build"));
}

TEST(BenchmarkJsonTest, EntriesAreIterationsWithCountersAsKeys) {
  const BenchmarkEntry e{"BM_X/a:1",
                         /*family_index=*/0,
                         /*repetitions=*/2,
                         /*repetition_index=*/1,
                         /*iterations=*/5,
                         /*real_time=*/1.5,
                         /*cpu_time=*/1.25,
                         /*time_unit=*/"ms",
                         /*counters=*/{{"verified", 1}, {"mfu", 0.25}},
                         /*label=*/"DISTURBED: MFU 140% > 100%"};
  absl::StatusOr<nlohmann::json> j = BenchmarkJson({{"k", "v"}}, {e});
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ((*j)["context"]["k"], "v");
  ASSERT_EQ((*j)["benchmarks"].size(), 1u);
  const nlohmann::json& b = (*j)["benchmarks"][0];
  EXPECT_EQ(b["name"], "BM_X/a:1");
  EXPECT_EQ(b["run_name"], "BM_X/a:1");
  EXPECT_EQ(b["run_type"], "iteration");
  EXPECT_EQ(b["repetitions"], 2);
  EXPECT_EQ(b["repetition_index"], 1);
  EXPECT_EQ(b["iterations"], 5);
  EXPECT_EQ(b["real_time"], 1.5);
  EXPECT_EQ(b["cpu_time"], 1.25);
  EXPECT_EQ(b["time_unit"], "ms");
  EXPECT_EQ(b["verified"], 1);
  EXPECT_EQ(b["mfu"], 0.25);
  EXPECT_EQ(b["label"], "DISTURBED: MFU 140% > 100%");
  BenchmarkEntry unlabelled = e;
  unlabelled.label.clear();
  EXPECT_FALSE((*BenchmarkJson({}, {unlabelled}))["benchmarks"][0].contains("label"));
}

TEST(BenchmarkJsonTest, BadEntriesAreRefusedByName) {
  BenchmarkEntry e;
  e.name = "BM_Y";
  e.real_time = e.cpu_time = 1;
  e.time_unit = "fortnights";
  EXPECT_NE(BenchmarkJson({}, {e}).status().message().find("'BM_Y': time_unit 'fortnights'"),
            std::string::npos);
  e.time_unit = "us";
  e.real_time = std::nan("");
  EXPECT_NE(BenchmarkJson({}, {e}).status().message().find("must be finite"), std::string::npos);
  e.real_time = 1;
  e.iterations = 0;
  EXPECT_NE(BenchmarkJson({}, {e}).status().message().find("iterations 0"), std::string::npos);
  e.iterations = 1;
  e.counters = {{"real_time", 3}};
  EXPECT_NE(BenchmarkJson({}, {e}).status().message().find("counter 'real_time'"), std::string::npos);
}

TEST(BenchmarkJsonTest, WriteJsonFileReplacesTheFile) {
  const std::string path = std::string(getenv("TEST_TMPDIR")) + "/out.json";
  ASSERT_TRUE(WriteJsonFile("--benchmark_out", path, {{"a", 1}}).ok());
  ASSERT_TRUE(WriteJsonFile("--benchmark_out", path, {{"a", 2}}).ok());
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  EXPECT_EQ(nlohmann::json::parse(s.str())["a"], 2);
  const absl::Status bad = WriteJsonFile("--benchmark_out", "/no/such/dir/x.json", {});
  EXPECT_NE(bad.message().find("--benchmark_out=/no/such/dir/x.json"), std::string::npos) << bad;
}

}  // namespace
}  // namespace harness
