// The run context: everything about the machine and the build that a benchmark figure depends
// on besides the code. Every benchmark binary records it in its JSON, and tools/bench in the
// merged run; tools/gate derives the machine key from it (tools/gate/gate_key.h).
//
//   {
//     "cpu":   {vendor, model_name, family, model, stepping, isa_level, isa_flags,
//               logical_cpus, physical_cores, memory_gib},
//     "gemm":  [{name, version, kernel, note, threads}, ...],
//     "gpu":   {name, count, driver, runtime, cublas, nccl, reason},
//     "build": {commit, compiler, compilation_mode, asserts, target_isa},
//     "date":  "2026-11-30T13:45:00Z"
//   }
// With no usable GPU, gpu.name is "none", gpu.count 0 and gpu.reason says why.
#ifndef SYSINFO_RUN_CONTEXT_H_
#define SYSINFO_RUN_CONTEXT_H_

#include <string>

#include "nlohmann/json.hpp"
#include "sysinfo/cuda_info.h"

namespace sysinfo {

inline constexpr char kRunContextFormat[] = "mlbench-run-context/1";

// Probes this machine and build. `cuda` is passed in so a caller that probed already does not
// probe twice.
nlohmann::json RunContext(const CudaInventory& cuda);
nlohmann::json RunContext();

// One line for people: "AMD EPYC (AuthenticAMD family 25 model 17 stepping 1, AVX-512), 2 CPUs,
// 23.4 GiB | GEMM OpenBLAS 0.3.21 kernel Haswell ... | no GPU | build opt ... commit abc123".
std::string DescribeRunContext(const nlohmann::json& context);

}  // namespace sysinfo

#endif  // SYSINFO_RUN_CONTEXT_H_
