// StepSeriesLog and the amendment of gpt_step's --benchmark_out JSON file.
#include "macro/step_series.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "harness/atomic_file.h"
#include "harness/bounded_read.h"
#include "harness/json_doc.h"
#include "harness/json_text.h"
#include "nlohmann/json.hpp"

namespace macro {
namespace {

using Json = nlohmann::ordered_json;

// Google Benchmark writes non-finite counters as bare NaN / Infinity, which JSON parsers reject.
// They travel through the parse as these strings and are put back as they were.
constexpr const char* kTokens[][2] = {{"-Infinity", "\"__mlbench_-Infinity__\""},
                                      {"Infinity", "\"__mlbench_Infinity__\""},
                                      {"-NaN", "\"__mlbench_-NaN__\""},
                                      {"NaN", "\"__mlbench_NaN__\""}};

std::string ProtectTokens(const std::string& text) {
  return harness::RewriteOutsideJsonStrings(
      text, [](const std::string& text, size_t i, std::string* out) -> size_t {
        for (const auto& t : kTokens) {
          const size_t n = std::strlen(t[0]);
          if (text.compare(i, n, t[0]) == 0) {
            *out += t[1];
            return n;
          }
        }
        return 0;
      });
}

std::string RestoreTokens(std::string text) {
  for (const auto& t : kTokens) text = absl::StrReplaceAll(text, {{t[1], t[0]}});
  return text;
}

}  // namespace

void StepSeriesLog::SetCaseName(int case_index, const std::string& name) {
  if (case_index >= static_cast<int>(names_.size())) names_.resize(case_index + 1);
  names_[case_index] = name;
}

void StepSeriesLog::BeginRepetition(int case_index) {
  StepSeriesRecord r;
  r.case_index = case_index;
  for (const StepSeriesRecord& old : records_) r.repetition += old.case_index == case_index;
  records_.push_back(r);
}

void StepSeriesLog::AddWarmup(double seconds) {
  if (!records_.empty()) records_.back().warmup_s.push_back(seconds);
}

void StepSeriesLog::AddTimed(double seconds) {
  if (!records_.empty()) records_.back().timed_s.push_back(seconds);
}

absl::StatusOr<std::string> AddStepSeriesToJsonText(const std::string& json, const StepSeriesLog& log,
                                                    const std::string& what) {
  Json j = harness::ParseOrderedJson(ProtectTokens(json));
  if (j.is_discarded() || !j.is_object() || !j.contains("benchmarks") || !j["benchmarks"].is_array()) {
    return absl::InvalidArgumentError(absl::StrCat("step times: ", what, " is not Google Benchmark JSON"));
  }
  for (Json& b : j["benchmarks"]) {
    if (!b.is_object() || b.value("run_type", "iteration") != "iteration") continue;
    const std::string run_name = b.contains("run_name") && b["run_name"].is_string()
                                     ? b["run_name"].get<std::string>()
                                     : b.value("name", "");
    // The longest registered name that run_name extends ("BM_GptStep/x" + "/iterations:...").
    int best = -1;
    for (int k = 0; k < static_cast<int>(log.case_names().size()); ++k) {
      const std::string& n = log.case_names()[k];
      if (n.empty() || !(run_name == n || absl::StartsWith(run_name, n + "/"))) continue;
      if (best < 0 || n.size() > log.case_names()[best].size()) best = k;
    }
    if (best < 0) continue;
    const int rep = b.contains("repetition_index") && b["repetition_index"].is_number_integer()
                        ? b["repetition_index"].get<int>()
                        : 0;
    for (const StepSeriesRecord& r : log.records()) {
      if (r.case_index != best || r.repetition != rep) continue;
      b["step_times_s"] = {{"warmup", r.warmup_s}, {"timed", r.timed_s}};
    }
  }
  return RestoreTokens(harness::DumpJson(j, 2)) + "\n";
}

absl::Status AddStepSeriesToJson(const std::string& path, const StepSeriesLog& log) {
  absl::StatusOr<std::string> json =
      harness::ReadFileAtMost(path, harness::kMaxJsonFileBytes, "step times: --benchmark_out file");
  if (!json.ok()) return json.status();
  absl::StatusOr<std::string> text = AddStepSeriesToJsonText(*json, log, absl::StrCat("'", path, "'"));
  if (!text.ok()) return text.status();
  absl::Status st = harness::WriteFileAtomically(path, *text);
  if (!st.ok()) return absl::Status(st.code(), absl::StrCat("step times: ", st.message()));
  return absl::OkStatus();
}

}  // namespace macro
