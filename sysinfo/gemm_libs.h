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

// The values oneDNN 2.6 accepts in ONEDNN_MAX_CPU_ISA / DNNL_MAX_CPU_ISA (its dispatcher-control
// documentation), compared case-insensitively; any other value is ignored by the library, which
// then dispatches as if the variable were unset (checked: "bogus" and "AVX512_MIC" leave the
// kernel at avx512_core_bf16 on a Zen 4, "avx2" caps it at avx2).
inline constexpr const char* kOneDnnIsaCaps[] = {"ALL",         "AVX512_CORE_AMX", "AVX512_CORE_BF16",
                                                 "AVX512_CORE_VNNI", "AVX512_CORE", "AVX2_VNNI",
                                                 "AVX2",        "AVX",             "SSE41"};

// The ISA cap the environment gives oneDNN: ONEDNN_MAX_CPU_ISA where set and not empty (it takes
// precedence), else DNNL_MAX_CPU_ISA; variable "" when neither is set.
struct OneDnnIsaCap {
  std::string variable;   // "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA" or ""
  std::string value;      // as given
  bool honoured = false;  // one of kOneDnnIsaCaps: oneDNN caps its ISA there
  // "capped by ONEDNN_MAX_CPU_ISA=avx2"; for a value oneDNN ignores, "ONEDNN_MAX_CPU_ISA=bogus is
  // ignored by oneDNN (it accepts ALL, AVX512_CORE_AMX, ...; case-insensitive): <dispatch>"; ""
  // when not set.
  std::string Note(const std::string& dispatch) const;
};
OneDnnIsaCap ParseOneDnnIsaCap(const std::string& onednn_max_cpu_isa, const std::string& dnnl_max_cpu_isa);

// oneDNN as linked (dnnl_version, dnnl_get_effective_cpu_isa), whether ONEDNN_MAX_CPU_ISA /
// DNNL_MAX_CPU_ISA capped its ISA (forced only when oneDNN honours the value: ParseOneDnnIsaCap).
// The kernel is the effective ISA ("avx512_core_bf16").
GemmLibrary OneDnnLibrary();

// Every CPU GEMM library linked into this build: oneDNN, OpenBLAS.
std::vector<GemmLibrary> CpuGemmLibraries();

}  // namespace sysinfo

#endif  // SYSINFO_GEMM_LIBS_H_
