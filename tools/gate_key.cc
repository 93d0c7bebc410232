// Machine keys and baseline file names; see gate_key.h.
#include "tools/gate_key.h"

#include <cctype>

#include "absl/strings/str_cat.h"

namespace gate {

std::string SanitizeFileComponent(const std::string& s) {
  std::string out;
  bool pending = false;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '.' || c == '-') {
      if (pending && !out.empty()) out += '_';
      pending = false;
      out += static_cast<char>(c);
    } else {
      pending = true;
    }
  }
  // A leading '.' would hide the file; a leading '-' would read as a flag.
  size_t lead = out.find_first_not_of("._-");
  out.erase(0, lead == std::string::npos ? out.size() : lead);
  return out.empty() ? "unknown" : out;
}

std::string MachineKey::Describe() const {
  std::string gpu = gpu_count == 0 || gpu_name == "none"
                        ? "no GPU"
                        : (gpu_count > 1 ? absl::StrCat(gpu_count, "x ", gpu_name) : gpu_name);
  return absl::StrCat(cpu_model, " x", logical_cpus, " | ", gpu, " | CUDA ", cuda);
}

std::string MachineKey::FileName(const std::string& suite) const {
  std::string gpu = gpu_count == 0 || gpu_name == "none"
                        ? "no-GPU"
                        : (gpu_count > 1 ? absl::StrCat(gpu_count, "x-", gpu_name) : gpu_name);
  return absl::StrCat(SanitizeFileComponent(absl::StrCat(cpu_model, " x", logical_cpus)), "__",
                      SanitizeFileComponent(gpu), "__", SanitizeFileComponent("CUDA-" + cuda), "__",
                      SanitizeFileComponent(suite), ".json");
}

nlohmann::json MachineKey::ToJson() const {
  return {{"cpu_model", cpu_model}, {"logical_cpus", logical_cpus}, {"gpu_name", gpu_name},
          {"gpu_count", gpu_count}, {"cuda", cuda}};
}

absl::StatusOr<MachineKey> KeyFromContext(const nlohmann::json& context,
                                          std::vector<std::string>* warnings) {
  MachineKey key;
  if (!context.is_object() || !context.contains("mlbench")) {
    key.cpu_model = "unknown CPU";
    key.logical_cpus = context.is_object() && context.value("num_cpus", nlohmann::json()).is_number_integer()
                           ? context["num_cpus"].get<int>()
                           : 0;
    key.gpu_name = "none";
    key.cuda = "none";
    if (warnings != nullptr) {
      warnings->push_back("the run has no context.mlbench (was it made by //tools:bench?); "
                          "machine key guessed as '" + key.Describe() + "'");
    }
    return key;
  }
  const nlohmann::json& m = context["mlbench"];
  auto get_string = [&](const char* f, std::string* out) -> absl::Status {
    if (!m.contains(f)) return absl::InvalidArgumentError(absl::StrCat("context.mlbench.", f, " is missing"));
    if (!m[f].is_string()) {
      return absl::InvalidArgumentError(absl::StrCat("context.mlbench.", f, " is a ", m[f].type_name(),
                                                     ", expected a string"));
    }
    *out = m[f].get<std::string>();
    return absl::OkStatus();
  };
  auto get_int = [&](const char* f, int* out) -> absl::Status {
    if (!m.contains(f)) return absl::InvalidArgumentError(absl::StrCat("context.mlbench.", f, " is missing"));
    if (!m[f].is_number_integer()) {
      return absl::InvalidArgumentError(absl::StrCat("context.mlbench.", f, " is a ", m[f].type_name(),
                                                     ", expected an integer"));
    }
    *out = m[f].get<int>();
    return absl::OkStatus();
  };
  if (!m.is_object()) return absl::InvalidArgumentError("context.mlbench is not an object");
  if (auto s = get_string("cpu_model", &key.cpu_model); !s.ok()) return s;
  if (auto s = get_int("logical_cpus", &key.logical_cpus); !s.ok()) return s;
  if (auto s = get_string("gpu_name", &key.gpu_name); !s.ok()) return s;
  if (auto s = get_int("gpu_count", &key.gpu_count); !s.ok()) return s;
  std::string runtime;
  if (auto s = get_string("cuda_runtime", &runtime); !s.ok()) return s;
  key.cuda = key.gpu_count > 0 && key.gpu_name != "none" ? runtime : "none";
  return key;
}

std::string SuiteFromContext(const nlohmann::json& context) {
  if (context.is_object() && context.contains("mlbench") && context["mlbench"].is_object()) {
    const nlohmann::json& m = context["mlbench"];
    if (m.contains("suite") && m["suite"].is_string()) return m["suite"].get<std::string>();
  }
  return "default";
}

}  // namespace gate
