// //tools:devices: prints the CPU and each CUDA device, or "no CUDA device: <reason>".
// Always exits 0: it describes the machine, it does not judge it.
#include <cstdio>
#include <string>

#include "absl/strings/str_format.h"

#include "model/cpu_gemm_backend.h"
#include "model/gemm_info.h"
#include "sysinfo/cpu_info.h"
#include "sysinfo/cuda_info.h"

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("devices: describes this machine.\n\nUsage: devices (no flags)\n"
                  "Example: bazel run //tools:devices\n\n"
                  "  Prints the CPU (model, cores, AVX2/AVX-512/FMA, clock, caches),\n"
                  "  the CPU GEMM libraries (oneDNN, OpenBLAS: version, kernel or ISA, how chosen)\n"
                  "  and each CUDA device (name, SMs, memory, clocks, compute capability),\n"
                  "  or 'no CUDA device: <reason>'. Exits 0 either way.\n");
      return 0;
    }
    std::fprintf(stderr, "devices: unknown argument '%s' (it takes none; see --help)\n", argv[i]);
    return 2;
  }
  sysinfo::CpuInfo cpu = sysinfo::ReadCpuInfo();
  std::printf("CPU: %s\n", cpu.model.c_str());
  std::printf("  logical CPUs: %d, physical cores: %d\n", cpu.logical_cpus, cpu.physical_cores);
  std::printf("  ISA: %s\n", cpu.IsaString().empty() ? "(none of AVX2, AVX-512F, FMA)" : cpu.IsaString().c_str());
  std::printf("  clock: %.0f MHz (as /proc/cpuinfo reports now)\n", cpu.mhz);
  std::printf("  L2: %ld KiB per core, L3: %ld KiB\n", cpu.l2_bytes / 1024, cpu.l3_bytes / 1024);
  // The CPU GEMM libraries and the kernels they run here (gpt_step's --cpu_gemm).
  for (model::CpuGemmBackend b : {model::CpuGemmBackend::kOneDnn, model::CpuGemmBackend::kOpenBlas}) {
    std::printf("CPU GEMM %s: %s\n", model::CpuGemmBackendName(b).c_str(),
                model::CpuGemmInfo(b).ToString().c_str());
  }

  // The free memory needs a context on each device: this tool describes the machine, so it asks.
  sysinfo::CudaInventory cuda = sysinfo::ProbeCuda(sysinfo::CudaProbe::kWithFreeMemory);
  if (!cuda.available) {
    std::printf("no CUDA device: %s\n", cuda.reason.c_str());
    return 0;
  }
  std::printf("CUDA driver %s, runtime %s\n", sysinfo::CudaVersionString(cuda.driver_version).c_str(),
              sysinfo::CudaVersionString(cuda.runtime_version).c_str());
  for (const auto& d : cuda.devices) {
    std::printf("GPU %d: %s\n", d.index, d.name.c_str());
    std::printf("  compute capability %d.%d, %d SMs, SM clock %.0f MHz\n", d.cc_major, d.cc_minor,
                d.sm_count, d.sm_clock_khz / 1e3);
    const std::string free = d.free_bytes < 0 ? std::string("free unknown")
                                              : absl::StrFormat("%.1f GiB free", d.free_bytes / 1073741824.0);
    std::printf("  memory: %.1f GiB total, %s, clock %.0f MHz, %d-bit bus, %.0f GB/s theoretical\n",
                d.total_bytes / 1073741824.0, free.c_str(), d.mem_clock_khz / 1e3, d.mem_bus_bits,
                d.TheoreticalBandwidth() / 1e9);
    std::printf("  L2: %.0f MiB\n", d.l2_bytes / 1048576.0);
  }
  return 0;
}
