// The CPU GEMM libraries this build links, and the kernel each one runs on this machine: the
// provenance printed next to every FLOP rate (a GEMM rate says nothing without it: OpenBLAS
// forced to its Haswell kernels on an AVX-512 CPU runs at half the speed of the CPU's peak).
#ifndef SYSINFO_GEMM_LIBS_H_
#define SYSINFO_GEMM_LIBS_H_

#include <string>
#include <vector>

namespace sysinfo {

struct GemmLibrary {
  std::string name;     // "OpenBLAS"
  std::string version;  // "0.3.21"
  std::string kernel;   // the kernel or ISA it runs: "Haswell" (OpenBLAS core), "avx512_core"
  std::string note;     // how the kernel was chosen: "forced by OPENBLAS_CORETYPE=Haswell"
  bool forced = false;  // the environment forced or capped the kernel choice
  int threads = 0;      // its thread count, 0 when unknown
  std::string config;   // the library's own build description
  // "OpenBLAS 0.3.21, core Haswell (forced by OPENBLAS_CORETYPE=Haswell), 2 threads"
  std::string Describe() const;
};

// OpenBLAS as linked (openblas_get_config / openblas_get_corename), whether OPENBLAS_CORETYPE
// forced its core.
GemmLibrary OpenBlasLibrary();

// oneDNN as linked (dnnl_version, dnnl_get_effective_cpu_isa), whether DNNL_MAX_CPU_ISA /
// ONEDNN_MAX_CPU_ISA capped its ISA. The kernel is the effective ISA ("avx512_core_bf16").
GemmLibrary OneDnnLibrary();

// Every CPU GEMM library linked into this build: oneDNN, OpenBLAS.
std::vector<GemmLibrary> CpuGemmLibraries();

}  // namespace sysinfo

#endif  // SYSINFO_GEMM_LIBS_H_
