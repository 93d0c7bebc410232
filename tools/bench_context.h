// The machine and build description tools/bench adds to a merged run, under
// "context" -> "mlbench" (a JSON object; the rest of "context" is Google Benchmark's own):
//   cpu_model, logical_cpus          sysinfo::ReadCpuInfo()
//   gpu_name, gpu_count              first CUDA device's name ("none" without a usable device)
//   cuda_driver, cuda_runtime        "13.0" style, "none" when unknown
//   cuda_reason                      why no device, when none
//   commit                           git rev-parse HEAD in BUILD_WORKSPACE_DIRECTORY, "+dirty"
//                                    when tracked files differ; "unknown" outside `bazel run`
//   build_type                       Bazel's compilation mode of this build (opt, dbg, fastbuild)
//   date                             UTC, ISO 8601
// tools/gate computes the baseline key from these fields (gate_key.h).
#ifndef TOOLS_BENCH_CONTEXT_H_
#define TOOLS_BENCH_CONTEXT_H_

#include <string>

#include "nlohmann/json.hpp"

namespace bench {

// Probes this machine (CPU, CUDA) and the workspace's git commit.
nlohmann::json MachineContext();

// git rev-parse HEAD of `workspace_dir` (+ "+dirty"), "unknown" when that fails or it is empty.
std::string GitCommit(const std::string& workspace_dir);

// Bazel's compilation mode this binary was built in.
std::string BuildType();

// Current time, UTC, "2024-01-31T12:34:56Z".
std::string UtcNow();

}  // namespace bench

#endif  // TOOLS_BENCH_CONTEXT_H_
