// A benchmark run as tools/gate sees it: the JSON context and, per case, the per-repetition
// entries Google Benchmark wrote ("run_type": "iteration"; aggregates such as _median are
// ignored, the gate computes its own). Reads the merged output of tools/bench, a plain
// Google Benchmark JSON file, or a baseline file (which has the same two members).
#ifndef TOOLS_GATE_GATE_RUN_H_
#define TOOLS_GATE_GATE_RUN_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace gate {

struct Run {
  std::string source;  // file name, for messages
  nlohmann::json context = nlohmann::json::object();
  // Case name -> its iteration entries (one per repetition), in file order.
  std::map<std::string, std::vector<nlohmann::json>> cases;
  std::vector<std::string> order;  // case names in order of first appearance
};

// Validates the shape: an object with a "benchmarks" array whose iteration entries have a
// string "name" and numeric real_time/cpu_time where present, finite and positive unless the
// entry has error_occurred. Errors name `source` and the entry, e.g.
// "'x.json': benchmarks[3].real_time is a string, expected a number".
absl::StatusOr<Run> ParseRun(const nlohmann::json& j, const std::string& source);

// Fails when the run has no results other than calibration cases (a run that measured
// nothing is never judged as passing).
absl::Status RequireResults(const Run& run);

// ReadJsonFile + ParseRun.
absl::StatusOr<Run> LoadRun(const std::string& path);

}  // namespace gate

#endif  // TOOLS_GATE_GATE_RUN_H_
