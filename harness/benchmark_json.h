// Google-Benchmark-shaped JSON for binaries that time their own loop instead of running Google
// Benchmark (macro/ddp_step and micro/allreduce run under mpirun), so that tools/gate and Google
// Benchmark's tools/compare.py read their figures like any other benchmark's:
//
//   {"context": {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu",
//                "cpu_scaling_enabled", "caches", "load_avg", "library_build_type",
//                "mlbench_run_context", "mlbench_machine", "mlbench_commit"},
//    "benchmarks": [{"name", "family_index", "per_family_instance_index", "run_name",
//                    "run_type": "iteration", "repetitions", "repetition_index", "threads",
//                    "iterations", "real_time", "cpu_time", "time_unit", <counters>...}]}
//
// The context holds what Google Benchmark's JSON reporter writes and the run context
// (sysinfo/run_context.h) under the keys harness::AddRunContext uses.
#ifndef HARNESS_BENCHMARK_JSON_H_
#define HARNESS_BENCHMARK_JSON_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace harness {

// One "iteration" entry: one repetition of one case.
struct BenchmarkEntry {
  std::string name;      // "BM_DdpStep/gpt2/cpu/fp32/B:4/T:64/ranks:2/accum:1"
  int family_index = 0;  // which case, in order of first appearance
  int repetitions = 1;   // of this case
  int repetition_index = 0;
  int64_t iterations = 1;
  double real_time = 0;                    // per iteration, in time_unit
  double cpu_time = 0;                     // per iteration, in time_unit
  std::string time_unit = "ns";            // ns, us, ms or s
  std::map<std::string, double> counters;  // written as plain keys, as Google Benchmark does
  std::string label;                       // written as "label" when not empty (SetLabel's key)
};

// The context of a run on this machine by `executable` (argv[0]).
nlohmann::json BenchmarkContext(const std::string& executable);

// {"context": context, "benchmarks": [...]}. Entries must have a name, iterations >= 1,
// finite real_time and cpu_time >= 0 and a known time_unit; counters may not use a key of the
// entry itself. Errors name the entry.
absl::StatusOr<nlohmann::json> BenchmarkJson(const nlohmann::json& context,
                                             const std::vector<BenchmarkEntry>& entries);

// Writes `j` to `path` by way of a temp file in the same folder, then renames it. Errors name
// `flag` ("--benchmark_out") and the path.
absl::Status WriteJsonFile(const std::string& flag, const std::string& path, const nlohmann::json& j);

}  // namespace harness

#endif  // HARNESS_BENCHMARK_JSON_H_
