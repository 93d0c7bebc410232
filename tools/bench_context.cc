// Machine description for merged benchmark runs; see bench_context.h.
#include "tools/bench_context.h"

#include <cstdlib>
#include <ctime>

#include "absl/strings/strip.h"
#include "sysinfo/cpu_info.h"
#include "sysinfo/cuda_info.h"
#include "tools/bench_binaries.h"
#include "tools/bench_subprocess.h"

namespace bench {

std::string BuildType() { return CompilationMode(); }

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string GitCommit(const std::string& workspace_dir) {
  if (workspace_dir.empty()) return "unknown";
  auto head = RunProcess({"git", "-C", workspace_dir, "rev-parse", "HEAD"}, /*capture_stderr=*/true);
  if (!head.ok() || head->exit_code != 0) return "unknown";
  std::string commit(absl::StripAsciiWhitespace(head->stdout_text));
  if (commit.empty()) return "unknown";
  auto dirty = RunProcess({"git", "-C", workspace_dir, "status", "--porcelain", "--untracked-files=no"},
                          /*capture_stderr=*/true);
  if (dirty.ok() && dirty->exit_code == 0 && !absl::StripAsciiWhitespace(dirty->stdout_text).empty()) {
    commit += "+dirty";
  }
  return commit;
}

nlohmann::json MachineContext() {
  sysinfo::CpuInfo cpu = sysinfo::ReadCpuInfo();
  sysinfo::CudaInventory cuda = sysinfo::ProbeCuda();
  nlohmann::json m;
  m["cpu_model"] = cpu.model;
  m["logical_cpus"] = cpu.logical_cpus;
  if (cuda.available && !cuda.devices.empty()) {
    m["gpu_name"] = cuda.devices[0].name;
    m["gpu_count"] = static_cast<int>(cuda.devices.size());
  } else {
    m["gpu_name"] = "none";
    m["gpu_count"] = 0;
    m["cuda_reason"] = cuda.reason;
  }
  m["cuda_driver"] = sysinfo::CudaVersionString(cuda.driver_version);
  m["cuda_runtime"] = sysinfo::CudaVersionString(cuda.runtime_version);
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  m["commit"] = GitCommit(ws == nullptr ? "" : ws);
  m["build_type"] = BuildType();
  m["date"] = UtcNow();
  return m;
}

}  // namespace bench
