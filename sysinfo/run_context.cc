// The run context; see run_context.h.
#include "sysinfo/run_context.h"

#include <cmath>

#include "harness/json_doc.h"
#include "sysinfo/build_info.h"
#include "sysinfo/cpu_info.h"
#include "sysinfo/cuda_libs.h"
#include "sysinfo/gemm_libs.h"
#include "sysinfo/utc_now.h"

namespace sysinfo {

// The run context's "gemm" entries and "build" object: these fields, under their own names.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GemmLibrary, name, version, kernel, note, threads)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(BuildInfo, commit, compiler, compilation_mode, asserts, target_isa)

nlohmann::json RunContext(const CudaInventory& cuda) {
  nlohmann::json c;
  c["format"] = kRunContextFormat;
  const CpuInfo cpu = ReadCpuInfo();
  c["cpu"] = {{"vendor", cpu.vendor},
              {"model_name", cpu.model},
              {"family", cpu.family},
              {"model", cpu.model_number},
              {"stepping", cpu.stepping},
              {"isa_level", cpu.IsaLevel()},
              {"isa_flags", cpu.IsaString()},
              {"logical_cpus", cpu.logical_cpus},
              {"physical_cores", cpu.physical_cores},
              // Rounded: VMs of one kind differ by a few MiB of firmware reservations.
              {"memory_gib", std::round(cpu.memory_bytes / 1073741824.0)}};
  c["gemm"] = CpuGemmLibraries();
  const CudaLibraryVersions libs = GetCudaLibraryVersions();
  nlohmann::json gpu;
  if (cuda.available && !cuda.devices.empty()) {
    gpu["name"] = cuda.devices[0].name;
    gpu["count"] = static_cast<int>(cuda.devices.size());
  } else {
    gpu["name"] = "none";
    gpu["count"] = 0;
    gpu["reason"] = cuda.reason;
  }
  gpu["driver"] = CudaVersionString(cuda.driver_version);
  gpu["runtime"] = CudaVersionString(cuda.runtime_version);
  gpu["cublas"] = libs.cublas;
  gpu["nccl"] = libs.nccl;
  c["gpu"] = gpu;
  c["build"] = GetBuildInfo();
  c["date"] = UtcNow();
  return c;
}

nlohmann::json RunContext() { return RunContext(ProbeCuda()); }

std::string DescribeRunContext(const nlohmann::json& c) {
  auto str = [](const nlohmann::json& j, const char* k) {
    return j.is_object() && j.contains(k) ? (j[k].is_string() ? j[k].get<std::string>() : harness::DumpJson(j[k]))
                                          : std::string("?");
  };
  const nlohmann::json& cpu = c.value("cpu", nlohmann::json::object());
  std::string s = str(cpu, "model_name") + " (" + str(cpu, "vendor") + " family " + str(cpu, "family") +
                  " model " + str(cpu, "model") + " stepping " + str(cpu, "stepping") + ", " +
                  str(cpu, "isa_level") + "), " + str(cpu, "logical_cpus") + " CPUs, " +
                  str(cpu, "memory_gib") + " GiB";
  for (const nlohmann::json& g : c.value("gemm", nlohmann::json::array())) {
    s += " | " + str(g, "name") + " " + str(g, "version") + " kernel " + str(g, "kernel");
  }
  const nlohmann::json& gpu = c.value("gpu", nlohmann::json::object());
  s += gpu.value("count", 0) > 0 ? " | " + str(gpu, "count") + "x " + str(gpu, "name") + " (driver " +
                                       str(gpu, "driver") + ", CUDA " + str(gpu, "runtime") + ")"
                                 : std::string(" | no GPU");
  const nlohmann::json& b = c.value("build", nlohmann::json::object());
  s += " | build " + str(b, "compilation_mode") + ", " + str(b, "compiler") + ", commit " + str(b, "commit");
  return s;
}

}  // namespace sysinfo
