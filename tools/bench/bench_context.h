// The machine and build description tools/bench adds to a merged run, under
// "context" -> "mlbench" (a JSON object; the rest of "context" is Google Benchmark's own):
//   run_context   sysinfo::RunContext(): CPU signature and ISA, GEMM libraries and kernels,
//                 GPU and CUDA libraries, compiler, build type, stamped commit; tools/gate
//                 derives the machine key from it (gate_key.h)
//   commit        the stamped commit of this build (run_context.build.commit), for baselines
//   build_type    Bazel's compilation mode of this build (opt, dbg, fastbuild)
//   date          UTC, ISO 8601
// tools/bench adds the run's settings (suite, filter, repetitions, ...) beside them.
#ifndef TOOLS_BENCH_BENCH_CONTEXT_H_
#define TOOLS_BENCH_BENCH_CONTEXT_H_

#include <string>

#include "nlohmann/json.hpp"

namespace bench {

// Probes this machine (CPU, GEMM libraries, CUDA) and describes this build.
nlohmann::json MachineContext();

// Bazel's compilation mode this binary was built in.
std::string BuildType();

}  // namespace bench

#endif  // TOOLS_BENCH_BENCH_CONTEXT_H_
