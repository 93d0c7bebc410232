// This machine's key, as tools/gate keys baselines (tools/gate/gate_key.h): the fields of the run
// context that change speed but are not the code (the CPU's vendor, model name, family, model,
// stepping, ISA level, logical CPUs and memory; each GEMM library's version and kernel; the GPU
// and, with one, its driver and CUDA libraries; the compiler, compilation mode, asserts and
// target ISA), and an 8-hex-digit FNV-1a hash over "name=value\n" of every field in name order.
//
// tools/gate derives the key from a run's JSON; a binary that keeps something per machine outside
// its JSON (harness/peak_record.h) derives it here from the same run context
// (sysinfo::RunContext), so both name one machine alike. macro/busy_machine_test.sh checks that
// the hash here is the one in the baseline file name `gate --update` writes for the same run.
#ifndef HARNESS_MACHINE_KEY_H_
#define HARNESS_MACHINE_KEY_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace harness {

struct MachineId {
  std::map<std::string, std::string> fields;  // "cpu.family" -> "25", as tools/gate's MachineKey
  std::string hash;                           // "3f2a9c1e": tools/gate's MachineKey::Hash()
  // "AMD EPYC [AuthenticAMD family 25 model 1 stepping 1, AVX2] x2, 23 GiB | OpenBLAS ... | no GPU |
  // opt build, g++ 12.2.0 | key 3f2a9c1e"
  std::string description;
};

// The key of a run context (sysinfo/run_context.h's object). Errors name the missing or mistyped
// field, as tools/gate's do.
absl::StatusOr<MachineId> MachineIdFromRunContext(const nlohmann::json& run_context);

// This machine's key: sysinfo::RunContext() taken once per process (it probes the GPUs).
absl::StatusOr<MachineId> ThisMachineId();

}  // namespace harness

#endif  // HARNESS_MACHINE_KEY_H_
