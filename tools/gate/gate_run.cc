// Loading and validating benchmark runs; see gate_run.h.
#include "tools/gate/gate_run.h"

#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "tools/gate/gate_io.h"

namespace gate {

absl::StatusOr<Run> ParseRun(const nlohmann::json& j, const std::string& source) {
  auto bad = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("'", source, "': ", what));
  };
  if (!j.is_object()) return bad("expected a JSON object with \"context\" and \"benchmarks\"");
  if (!j.contains("benchmarks") || !j["benchmarks"].is_array()) {
    return bad("no \"benchmarks\" array (is this a Google Benchmark JSON file?)");
  }
  Run run;
  run.source = source;
  if (j.contains("context")) {
    if (!j["context"].is_object()) return bad("\"context\" is not an object");
    run.context = j["context"];
  }
  const nlohmann::json& list = j["benchmarks"];
  // (name, repetition_index, side, recording) of each entry that has a repetition_index: one
  // repetition counted twice is not two samples (a duplicated set at 3x the time passed as SAME).
  std::map<std::string, size_t> first_index;
  for (size_t i = 0; i < list.size(); ++i) {
    const nlohmann::json& b = list[i];
    const std::string where = absl::StrCat("benchmarks[", i, "]");
    if (!b.is_object()) return bad(absl::StrCat(where, " is not an object"));
    if (!b.contains("name") || !b["name"].is_string()) {
      return bad(absl::StrCat(where, " has no string \"name\""));
    }
    if (b.contains("run_type") && b["run_type"] != "iteration") continue;
    for (const char* field : {"real_time", "cpu_time", "iterations"}) {
      if (b.contains(field) && !b[field].is_number()) {
        return bad(absl::StrCat(where, ".", field, " is a ", b[field].type_name(), ", expected a number"));
      }
    }
    if (b.contains("error_occurred") && !b["error_occurred"].is_boolean()) {
      return bad(absl::StrCat(where, ".error_occurred is a ", b["error_occurred"].type_name(),
                              ", expected true or false"));
    }
    if (b.contains("error_message") && !b["error_message"].is_string()) {
      return bad(absl::StrCat(where, ".error_message is a ", b["error_message"].type_name(), ", expected a string"));
    }
    // A time that is not a positive number is a broken measurement, not a fast case.
    if (!ValueOr(b, "error_occurred", false)) {
      for (const char* field : {"real_time", "cpu_time"}) {
        if (b.contains(field) && !(std::isfinite(b[field].get<double>()) && b[field].get<double>() > 0)) {
          return bad(absl::StrCat(where, " (", b["name"].get<std::string>(), ").", field, " = ",
                                  b[field].dump(), ": a time must be finite and positive"));
        }
      }
    }
    if (b.contains("time_unit") && !b["time_unit"].is_string()) {
      return bad(absl::StrCat(where, ".time_unit is not a string"));
    }
    const std::string name = b["name"].get<std::string>();
    if (b.contains("repetition_index")) {
      if (!b["repetition_index"].is_number_integer()) {
        return bad(absl::StrCat(where, ".repetition_index is a ", b["repetition_index"].type_name(),
                                ", expected an integer"));
      }
      const nlohmann::json side = b.contains("mlbench_side") ? b["mlbench_side"] : nlohmann::json();
      const nlohmann::json recorded = b.contains("mlbench_recorded") ? b["mlbench_recorded"] : nlohmann::json();
      const std::string key = nlohmann::json::array({name, b["repetition_index"], side, recorded}).dump();
      auto [at, fresh] = first_index.try_emplace(key, i);
      if (!fresh) {
        return bad(absl::StrCat(where, " repeats case '", name, "' repetition ", b["repetition_index"].dump(),
                                side.is_string() ? absl::StrCat(" (side ", side.get<std::string>(), ")") : "",
                                ", already benchmarks[", at->second,
                                "]: a duplicated repetition is not another sample; remove one"));
      }
    }
    auto [it, inserted] = run.cases.try_emplace(name);
    if (inserted) run.order.push_back(name);
    it->second.push_back(b);
  }
  return run;
}

absl::Status RequireResults(const Run& run) {
  for (const std::string& name : run.order) {
    if (name.rfind("BM_Calibration/", 0) != 0) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "'", run.source, "' holds no benchmark results", run.order.empty() ? "" : " besides calibration",
      ": there is nothing to judge (did the filter select nothing, or the run fail?)"));
}

absl::StatusOr<Run> LoadRun(const std::string& path) {
  absl::StatusOr<nlohmann::json> j = ReadJsonFile(path);
  if (!j.ok()) return j.status();
  return ParseRun(*j, path);
}

}  // namespace gate
