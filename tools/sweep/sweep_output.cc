// SweepOutput (sweep_output.h).
#include "tools/sweep/sweep_output.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "harness/json_doc.h"
#include "harness/machine_key.h"

namespace sweep {
namespace {

double Number(const nlohmann::json& entry, const char* key, double fallback) {
  auto it = entry.find(key);
  return it != entry.end() && it->is_number() ? it->get<double>() : fallback;
}

// The context plus the machine key derived from its run context (tools/gate's key).
nlohmann::json WithMachineKey(nlohmann::json context) {
  auto rc = context.find("mlbench_run_context");
  if (rc != context.end() && rc->is_string()) {
    nlohmann::json parsed = harness::ParseJson(rc->get<std::string>());
    if (!parsed.is_discarded()) {
      if (auto id = harness::MachineIdFromRunContext(parsed); id.ok()) {
        context["mlbench_machine_key"] = id->hash;
        context["mlbench_machine_description"] = id->description;
      }
    }
  }
  return context;
}

}  // namespace

SweepOutput::SweepOutput(const std::vector<PlannedPoint>& planned, int repetitions, nlohmann::json sweep_info)
    : planned_(planned), repetitions_(repetitions), info_(std::move(sweep_info)) {
  info_["format"] = "mlbench-sweep/1";
  info_["refused"] = nlohmann::json::array();
  info_["failed"] = nlohmann::json::array();
  for (const PlannedPoint& p : planned_) {
    if (!p.refused.empty()) info_["refused"].push_back({{"point", p.point.Short()}, {"reason", p.refused}});
  }
}

absl::StatusOr<RunFigures> SweepOutput::AddRun(int point, int repetition, const std::string& gpt_step_json) {
  auto doc = harness::ParseJsonOrError(gpt_step_json, "gpt_step's --benchmark_out");
  if (!doc.ok()) return doc.status();
  auto benchmarks = doc->find("benchmarks");
  if (!doc->is_object() || benchmarks == doc->end() || !benchmarks->is_array() || benchmarks->size() != 1 ||
      !(*benchmarks)[0].is_object()) {
    return absl::InvalidArgumentError("gpt_step's --benchmark_out holds no single benchmark entry");
  }
  nlohmann::json entry = (*benchmarks)[0];
  if (entry.value("error_occurred", false)) {
    return absl::InternalError(absl::StrCat("gpt_step: ", entry.value("error_message", std::string("error"))));
  }
  if (context_.is_null() && doc->contains("context")) context_ = WithMachineKey((*doc)["context"]);
  const std::string name = planned_[point].point.Name(planned_[point].options.device);
  entry["name"] = name;
  entry["run_name"] = name;
  entry["family_index"] = 0;
  entry["per_family_instance_index"] = point;
  entry["repetitions"] = repetitions_;
  entry["repetition_index"] = repetition;
  RunFigures f;
  f.ms_per_step = Number(entry, "ms_per_step", Number(entry, "real_time", 0));
  f.mfu = Number(entry, "mfu", -1);
  f.predicted_ms = Number(entry, "predicted_ms", -1);
  f.peak_bytes_measured = Number(entry, "mem_peak_bytes_measured", -1);
  f.predicted_peak_bytes = Number(entry, "mem_peak_bytes", -1);
  f.flops_per_second = Number(entry, "flops_per_second", 0);
  f.disturbed = Number(entry, "disturbed", 0) > 0;
  if (f.mfu >= 0) mfu_[point].push_back(f.mfu);
  runs_.emplace_back(point, std::move(entry));
  return f;
}

void SweepOutput::AddFailure(int point, int repetition, const std::string& reason) {
  const std::string name = planned_[point].point.Name(planned_[point].options.device);
  nlohmann::json entry = {{"name", name},          {"run_name", name},
                          {"run_type", "iteration"}, {"repetitions", repetitions_},
                          {"repetition_index", repetition}, {"error_occurred", true},
                          {"error_message", reason}};
  info_["failed"].push_back({{"point", planned_[point].point.Short()}, {"repetition", repetition + 1},
                             {"reason", reason}});
  runs_.emplace_back(point, std::move(entry));
  ++failures_;
}

std::string SweepOutput::Json() const {
  nlohmann::json doc;
  doc["context"] = context_.is_null() ? nlohmann::json::object() : context_;
  doc["context"]["mlbench_sweep"] = harness::DumpJson(info_);
  doc["benchmarks"] = nlohmann::json::array();
  for (const auto& [point, entry] : runs_) {
    nlohmann::json e = entry;
    auto it = mfu_.find(point);
    if (it != mfu_.end() && !e.value("error_occurred", false)) {
      e["mfu_min"] = *std::min_element(it->second.begin(), it->second.end());
      e["mfu_max"] = *std::max_element(it->second.begin(), it->second.end());
    }
    doc["benchmarks"].push_back(std::move(e));
  }
  return harness::DumpJson(doc, 2) + "\n";
}

}  // namespace sweep
