// This machine's key, as tools/gate derives it (machine_key.h). The fields, their text and the
// hash follow tools/gate/gate_key.cc's KeyFromRunContext and MachineKey::Hash line for line.
#include "harness/machine_key.h"

#include <cstdint>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "harness/json_doc.h"
#include "sysinfo/run_context.h"

namespace harness {
namespace {

// A JSON scalar as key text: strings as they are, numbers and booleans as JSON writes them.
std::string Text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : DumpJson(v); }

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

std::string Field(const std::map<std::string, std::string>& f, const std::string& name) {
  auto it = f.find(name);
  return it == f.end() ? "?" : it->second;
}

std::string Hash(const std::map<std::string, std::string>& fields) {
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

std::string Describe(const std::map<std::string, std::string>& f, const std::string& hash) {
  const std::string gpu = Field(f, "gpu.count") == "0"
                              ? "no GPU"
                              : absl::StrCat(Field(f, "gpu.count"), "x ", Field(f, "gpu.name"), " (driver ",
                                             Field(f, "gpu.driver"), ", CUDA ", Field(f, "gpu.runtime"), ")");
  std::string gemm;
  for (const auto& [name, value] : f) {
    if (name.rfind("gemm.", 0) == 0)
      absl::StrAppend(&gemm, gemm.empty() ? "" : ", ", name.substr(5), " ", value);
  }
  return absl::StrCat(
      Field(f, "cpu.model_name"), " [", Field(f, "cpu.vendor"), " family ", Field(f, "cpu.family"), " model ",
      Field(f, "cpu.model"), " stepping ", Field(f, "cpu.stepping"), ", ", Field(f, "cpu.isa_level"), "] x",
      Field(f, "cpu.logical_cpus"), ", ", Field(f, "cpu.memory_gib"), " GiB | ",
      gemm.empty() ? "no GEMM library" : gemm, " | ", gpu, " | ", Field(f, "build.compilation_mode"),
      " build, ", Field(f, "build.compiler"), " | key ", hash);
}

}  // namespace

absl::StatusOr<MachineId> MachineIdFromRunContext(const nlohmann::json& rc) {
  MachineId id;
  std::map<std::string, std::string>& f = id.fields;
  if (!rc.is_object()) return absl::InvalidArgumentError("the run context is not a JSON object");
  const nlohmann::json cpu = rc.value("cpu", nlohmann::json());
  for (const char* name : {"vendor", "model_name", "isa_level"}) {
    if (auto s = Require(cpu, "cpu", name, false, &f); !s.ok()) return s;
  }
  for (const char* name : {"family", "model", "stepping", "logical_cpus", "memory_gib"}) {
    if (auto s = Require(cpu, "cpu", name, true, &f); !s.ok()) return s;
  }
  if (!rc.contains("gemm") || !rc["gemm"].is_array()) {
    return absl::InvalidArgumentError("run context field gemm is missing or not an array");
  }
  for (const nlohmann::json& g : rc["gemm"]) {
    std::map<std::string, std::string> lib;
    for (const char* name : {"name", "version", "kernel"}) {
      if (auto s = Require(g, "gemm[]", name, false, &lib); !s.ok()) return s;
    }
    f["gemm." + lib["gemm[].name"]] = absl::StrCat(lib["gemm[].version"], " ", lib["gemm[].kernel"]);
  }
  const nlohmann::json gpu = rc.value("gpu", nlohmann::json());
  if (auto s = Require(gpu, "gpu", "name", false, &f); !s.ok()) return s;
  if (auto s = Require(gpu, "gpu", "count", true, &f); !s.ok()) return s;
  if (f["gpu.count"] != "0") {
    for (const char* name : {"driver", "runtime", "cublas", "nccl"}) {
      if (auto s = Require(gpu, "gpu", name, false, &f); !s.ok()) return s;
    }
  }
  const nlohmann::json build = rc.value("build", nlohmann::json());
  for (const char* name : {"compiler", "compilation_mode", "asserts", "target_isa"}) {
    if (auto s = Require(build, "build", name, false, &f); !s.ok()) return s;
  }
  id.hash = Hash(f);
  id.description = Describe(f, id.hash);
  return id;
}

absl::StatusOr<MachineId> ThisMachineId() {
  static const absl::StatusOr<MachineId>* const id =
      new absl::StatusOr<MachineId>(MachineIdFromRunContext(sysinfo::RunContext()));
  return *id;
}

}  // namespace harness
