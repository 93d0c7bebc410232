// Machine keys and baseline file names; see gate_key.h.
#include "tools/gate/gate_key.h"

#include <cctype>
#include <cstdint>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace gate {
namespace {

// A JSON scalar as key text: strings as they are, numbers and booleans as JSON writes them.
std::string Text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string Field(const MachineKey& k, const std::string& name) {
  auto it = k.fields.find(name);
  return it == k.fields.end() ? "?" : it->second;
}

absl::Status Require(const nlohmann::json& obj, const std::string& section, const char* field, bool numeric,
                     std::map<std::string, std::string>* out) {
  const std::string name = absl::StrCat(section, ".", field);
  if (!obj.is_object() || !obj.contains(field)) {
    return absl::InvalidArgumentError(absl::StrCat("run context field ", name, " is missing"));
  }
  const nlohmann::json& v = obj[field];
  if (numeric ? !v.is_number() : !(v.is_string() || v.is_boolean())) {
    return absl::InvalidArgumentError(absl::StrCat("run context field ", name, " is a ", v.type_name(),
                                                   ", expected ", numeric ? "a number" : "a string"));
  }
  (*out)[name] = Text(v);
  return absl::OkStatus();
}

}  // namespace

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
  std::string gpu =
      Field(*this, "gpu.count") == "0"
          ? "no GPU"
          : absl::StrCat(Field(*this, "gpu.count"), "x ", Field(*this, "gpu.name"), " (driver ",
                         Field(*this, "gpu.driver"), ", CUDA ", Field(*this, "gpu.runtime"), ")");
  std::string gemm;
  for (const auto& [name, value] : fields) {
    if (name.rfind("gemm.", 0) == 0)
      absl::StrAppend(&gemm, gemm.empty() ? "" : ", ", name.substr(5), " ", value);
  }
  return absl::StrCat(Field(*this, "cpu.model_name"), " [", Field(*this, "cpu.vendor"), " family ",
                      Field(*this, "cpu.family"), " model ", Field(*this, "cpu.model"), " stepping ",
                      Field(*this, "cpu.stepping"), ", ", Field(*this, "cpu.isa_level"), "] x",
                      Field(*this, "cpu.logical_cpus"), ", ", Field(*this, "cpu.memory_gib"), " GiB | ",
                      gemm.empty() ? "no GEMM library" : gemm, " | ", gpu, " | ",
                      Field(*this, "build.compilation_mode"), " build, ", Field(*this, "build.compiler"),
                      " | key ", Hash());
}

std::string MachineKey::Hash() const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bits
  for (const auto& [name, value] : fields) {
    for (char c : name + "=" + value + "\n") {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf, 8);
}

std::string MachineKey::FileName(const std::string& suite) const {
  std::string cpu = absl::StrCat(Field(*this, "cpu.model_name"), " f", Field(*this, "cpu.family"), "-m",
                                 Field(*this, "cpu.model"), "-s", Field(*this, "cpu.stepping"), " ",
                                 Field(*this, "cpu.isa_level"), " x", Field(*this, "cpu.logical_cpus"));
  std::string gpu = Field(*this, "gpu.count") == "0"
                        ? "no-GPU"
                        : absl::StrCat(Field(*this, "gpu.count"), "x-", Field(*this, "gpu.name"));
  return absl::StrCat(SanitizeFileComponent(cpu), "__", SanitizeFileComponent(gpu), "__", Hash(), "__",
                      SanitizeFileComponent(suite), ".json");
}

nlohmann::json MachineKey::ToJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, value] : fields) j[name] = value;
  return j;
}

absl::StatusOr<nlohmann::json> FindRunContext(const nlohmann::json& context) {
  if (!context.is_object()) return absl::NotFoundError("the run has no \"context\" object");
  if (context.contains("mlbench") && context["mlbench"].is_object() &&
      context["mlbench"].contains("run_context")) {
    return context["mlbench"]["run_context"];
  }
  if (context.contains("mlbench_run_context")) {
    const nlohmann::json& v = context["mlbench_run_context"];
    if (v.is_object()) return v;
    if (v.is_string()) {
      nlohmann::json parsed =
          nlohmann::json::parse(v.get<std::string>(), nullptr, /*allow_exceptions=*/false);
      if (parsed.is_discarded()) {
        return absl::InvalidArgumentError("context.mlbench_run_context is not valid JSON");
      }
      return parsed;
    }
    return absl::InvalidArgumentError(
        absl::StrCat("context.mlbench_run_context is a ", v.type_name(), ", expected a JSON string"));
  }
  return absl::NotFoundError("the run has no run context");
}

absl::StatusOr<MachineKey> KeyFromRunContext(const nlohmann::json& rc) {
  MachineKey key;
  if (!rc.is_object()) return absl::InvalidArgumentError("the run context is not a JSON object");
  const nlohmann::json cpu = rc.value("cpu", nlohmann::json());
  for (const char* f : {"vendor", "model_name", "isa_level"}) {
    if (auto s = Require(cpu, "cpu", f, false, &key.fields); !s.ok()) return s;
  }
  for (const char* f : {"family", "model", "stepping", "logical_cpus", "memory_gib"}) {
    if (auto s = Require(cpu, "cpu", f, true, &key.fields); !s.ok()) return s;
  }
  if (!rc.contains("gemm") || !rc["gemm"].is_array()) {
    return absl::InvalidArgumentError("run context field gemm is missing or not an array");
  }
  for (const nlohmann::json& g : rc["gemm"]) {
    std::map<std::string, std::string> lib;
    for (const char* f : {"name", "version", "kernel"}) {
      if (auto s = Require(g, "gemm[]", f, false, &lib); !s.ok()) return s;
    }
    key.fields["gemm." + lib["gemm[].name"]] = absl::StrCat(lib["gemm[].version"], " ", lib["gemm[].kernel"]);
  }
  const nlohmann::json gpu = rc.value("gpu", nlohmann::json());
  if (auto s = Require(gpu, "gpu", "name", false, &key.fields); !s.ok()) return s;
  if (auto s = Require(gpu, "gpu", "count", true, &key.fields); !s.ok()) return s;
  if (key.fields["gpu.count"] != "0") {
    for (const char* f : {"driver", "runtime", "cublas", "nccl"}) {
      if (auto s = Require(gpu, "gpu", f, false, &key.fields); !s.ok()) return s;
    }
  }
  const nlohmann::json build = rc.value("build", nlohmann::json());
  for (const char* f : {"compiler", "compilation_mode", "asserts", "target_isa"}) {
    if (auto s = Require(build, "build", f, false, &key.fields); !s.ok()) return s;
  }
  return key;
}

absl::StatusOr<MachineKey> KeyFromContext(const nlohmann::json& context, const std::string& source) {
  absl::StatusOr<nlohmann::json> rc = FindRunContext(context);
  if (!rc.ok()) {
    return absl::Status(rc.status().code(),
                        absl::StrCat("'", source, "': ", rc.status().message(),
                                     ": the machine it ran on cannot be identified, so it is never "
                                     "compared (make runs with //tools:bench, or with a benchmark "
                                     "binary of this revision, which records context.mlbench_run_context)"));
  }
  absl::StatusOr<MachineKey> key = KeyFromRunContext(*rc);
  if (!key.ok())
    return absl::Status(key.status().code(), absl::StrCat("'", source, "': ", key.status().message()));
  return key;
}

absl::StatusOr<MachineKey> KeyFromJson(const nlohmann::json& machine) {
  if (!machine.is_object()) return absl::InvalidArgumentError("\"machine\" is not an object");
  MachineKey key;
  for (const auto& [name, value] : machine.items()) {
    if (!value.is_string()) {
      return absl::InvalidArgumentError(absl::StrCat("\"machine\".", name, " is not a string"));
    }
    key.fields[name] = value.get<std::string>();
  }
  if (!key.fields.count("cpu.family")) {
    return absl::InvalidArgumentError(
        "\"machine\" has no cpu.family: it was recorded with the old key (CPU model name only), "
        "which cannot tell CPU generations apart");
  }
  return key;
}

std::vector<std::string> KeyDifferences(const MachineKey& baseline, const MachineKey& current) {
  std::vector<std::string> out;
  std::map<std::string, std::string> all = baseline.fields;
  all.insert(current.fields.begin(), current.fields.end());
  for (const auto& [name, unused] : all) {
    auto b = baseline.fields.find(name);
    auto c = current.fields.find(name);
    std::string bv = b == baseline.fields.end() ? "(absent)" : b->second;
    std::string cv = c == current.fields.end() ? "(absent)" : c->second;
    if (bv != cv) out.push_back(absl::StrCat(name, ": ", bv, " (baseline) vs ", cv, " (this run)"));
  }
  return out;
}

std::string SuiteFromContext(const nlohmann::json& context) {
  if (context.is_object() && context.contains("mlbench") && context["mlbench"].is_object()) {
    const nlohmann::json& m = context["mlbench"];
    if (m.contains("suite") && m["suite"].is_string()) return m["suite"].get<std::string>();
  }
  return "default";
}

}  // namespace gate
