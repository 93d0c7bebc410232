// Machine description for merged benchmark runs; see bench_context.h.
#include "tools/bench/bench_context.h"

#include "sysinfo/run_context.h"
#include "sysinfo/utc_now.h"
#include "tools/bench/bench_binaries.h"

namespace bench {

std::string BuildType() { return CompilationMode(); }

nlohmann::json MachineContext() {
  nlohmann::json m;
  m["run_context"] = sysinfo::RunContext();
  m["commit"] = m["run_context"]["build"]["commit"];
  m["build_type"] = BuildType();
  m["date"] = sysinfo::UtcNow();
  return m;
}

}  // namespace bench
