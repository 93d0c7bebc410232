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
  int threads = 0;      // its thread count, 0 when unknown
  // "OpenBLAS 0.3.21, core Haswell (forced by OPENBLAS_CORETYPE=Haswell), 2 threads"
  std::string Describe() const;
};

// OpenBLAS as linked (openblas_get_config / openblas_get_corename), whether OPENBLAS_CORETYPE
// forced its core.
GemmLibrary OpenBlasLibrary();

// Every CPU GEMM library linked into this build.
std::vector<GemmLibrary> CpuGemmLibraries();

}  // namespace sysinfo

#endif  // SYSINFO_GEMM_LIBS_H_
