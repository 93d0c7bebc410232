// The machine key a baseline is stored under: every field of a run's context that changes
// speed but is not the code (sysinfo/run_context.h):
//   cpu.vendor, cpu.model_name, cpu.family, cpu.model, cpu.stepping   the CPU generation: one
//                          model name ("AMD EPYC") covers VMs from Zen 3 (AVX2, 196 GFLOP/s on
//                          2 cores) to Zen 5 (AVX-512, 510 GFLOP/s)
//   cpu.isa_level, cpu.logical_cpus, cpu.memory_gib
//   gemm.<library>         its version and the kernel it runs ("0.3.21 Haswell")
//   gpu.name, gpu.count    and, with a GPU, gpu.driver, gpu.runtime, gpu.cublas, gpu.nccl
//   build.compiler, build.compilation_mode, build.asserts, build.target_isa
// Not in it: the commit and the date (what a comparison is about), and CUDA versions on a
// machine without a GPU (a toolkit upgrade cannot change CPU numbers).
//
// A baseline is compared only with a run of the same key; otherwise the gate says which fields
// differ. The file name carries a readable prefix and a hash of every field:
//   "AMD_EPYC_f25-m17-s1_AVX-512_x2__no-GPU__3f2a9c1e__quick.json"
#ifndef TOOLS_GATE_GATE_KEY_H_
#define TOOLS_GATE_GATE_KEY_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace gate {

struct MachineKey {
  std::map<std::string, std::string> fields;  // "cpu.family" -> "25"

  std::string Describe() const;                          // one line, for people
  std::string Hash() const;                              // 8 hex digits over every field
  std::string FileName(const std::string& suite) const;  // sanitised, ends in .json
  nlohmann::json ToJson() const;                         // the fields, as an object
  bool operator==(const MachineKey& o) const { return fields == o.fields; }
};

// The run context of a run's "context": context.mlbench.run_context (tools/bench), or
// context.mlbench_run_context (a benchmark binary's own JSON, where it is a JSON string).
// NotFound when there is none.
absl::StatusOr<nlohmann::json> FindRunContext(const nlohmann::json& context);

// The key of a run context. Errors name the missing or mistyped field.
absl::StatusOr<MachineKey> KeyFromRunContext(const nlohmann::json& run_context);

// FindRunContext + KeyFromRunContext; the error says why a run without one cannot be gated.
absl::StatusOr<MachineKey> KeyFromContext(const nlohmann::json& context, const std::string& source);

// The key stored in a baseline file's "machine" object.
absl::StatusOr<MachineKey> KeyFromJson(const nlohmann::json& machine);

// The fields that differ, one line each: "cpu.model: 1 (baseline) vs 17 (this run)".
std::vector<std::string> KeyDifferences(const MachineKey& baseline, const MachineKey& current);

// The suite recorded by tools/bench (context.mlbench.suite), "default" when absent.
std::string SuiteFromContext(const nlohmann::json& context);

// Letters, digits, '.', '-' kept; every other run of characters becomes one '_'; leading
// '.', '-', '_' dropped (no hidden files, no flags, no "../"); "unknown" if nothing is left.
std::string SanitizeFileComponent(const std::string& s);

}  // namespace gate

#endif  // TOOLS_GATE_GATE_KEY_H_
