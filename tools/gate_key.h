// The machine key a baseline is stored under: CPU model and logical CPU count, GPU name (and
// count when more than one) and CUDA runtime version, read from a run's context as
// tools/bench writes it (context.mlbench, see bench_context.h).
//
//   key  "AMD EPYC x2 | no GPU | CUDA none"
//   file "AMD_EPYC_x2__no-GPU__CUDA-none__quick.json"  (KeyFileStem + "__" + suite)
//
// Without a usable GPU the CUDA version is "none": a CPU-only baseline must not be orphaned
// by a toolkit upgrade that cannot change its numbers. A plain Google Benchmark file (no
// context.mlbench) gets CPU model "unknown CPU" and Google Benchmark's num_cpus, and a warning.
#ifndef TOOLS_GATE_KEY_H_
#define TOOLS_GATE_KEY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace gate {

struct MachineKey {
  std::string cpu_model;
  int logical_cpus = 0;
  std::string gpu_name;  // "none" without a GPU
  int gpu_count = 0;
  std::string cuda;      // "13.0", or "none" without a GPU

  std::string Describe() const;                        // the key, for people
  std::string FileName(const std::string& suite) const;  // sanitised, ends in .json
  nlohmann::json ToJson() const;
};

// Fails when context.mlbench exists but a field has the wrong type; `warnings` gets a line
// when the key had to be guessed.
absl::StatusOr<MachineKey> KeyFromContext(const nlohmann::json& context,
                                          std::vector<std::string>* warnings);

// The suite recorded by tools/bench (context.mlbench.suite), "default" when absent.
std::string SuiteFromContext(const nlohmann::json& context);

// Letters, digits, '.', '-' kept; every other run of characters becomes one '_'; leading
// '.', '-', '_' dropped (no hidden files, no flags, no "../"); "unknown" if nothing is left.
std::string SanitizeFileComponent(const std::string& s);

}  // namespace gate

#endif  // TOOLS_GATE_KEY_H_
