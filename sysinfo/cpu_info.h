// CPU description: model, cores, ISA flags that matter for FLOP peaks, clock and caches.
// Read from /proc/cpuinfo and sysfs; host-only.
#ifndef SYSINFO_CPU_INFO_H_
#define SYSINFO_CPU_INFO_H_

#include <string>

namespace sysinfo {

struct CpuInfo {
  std::string model = "unknown";
  std::string vendor = "unknown";  // "AuthenticAMD", "GenuineIntel"
  int family = -1;                 // cpuid family, model, stepping as /proc/cpuinfo says
  int model_number = -1;           // (-1 when unknown)
  int stepping = -1;
  long memory_bytes = 0;   // MemTotal; 0 when unknown
  int logical_cpus = 0;    // what the OS schedules on
  int physical_cores = 0;  // "cpu cores" x sockets; 0 when unknown
  bool avx2 = false;
  bool avx512f = false;
  bool fma = false;
  bool avx512_bf16 = false;
  bool amx = false;   // amx_tile
  double mhz = 0;     // current clock as /proc/cpuinfo reports it; 0 when unknown
  long l2_bytes = 0;  // per core; 0 when unknown
  long l3_bytes = 0;  // last-level cache, per socket; 0 when unknown

  // "AVX2 FMA" etc., empty string when none of the tracked flags is present.
  std::string IsaString() const;
  // The highest vector ISA level that changes GEMM speed: "AMX", "AVX512-BF16", "AVX-512",
  // "AVX2", or "SSE" (none of those).
  std::string IsaLevel() const;
  // "family 25 model 17 stepping 1" (what identifies a CPU generation behind one model name).
  std::string Signature() const;
  // fp32 FMA lanes per instruction: 16 with AVX-512, 8 with AVX2, 4 otherwise.
  int Fp32Lanes() const;
};

// Reads the running machine. Never fails: unknown fields stay at their defaults.
CpuInfo ReadCpuInfo();

// The CPUs this process may run on (its affinity mask, sched_getaffinity: what taskset, a
// container's cpuset or mpirun's binding leave it); 0 when unknown. A --threads above it only
// makes threads share CPUs.
int AffinityCpuCount();

}  // namespace sysinfo

#endif  // SYSINFO_CPU_INFO_H_
