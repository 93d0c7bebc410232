// Provenance of the CPU GEMM libraries; see gemm_libs.h.
#include "sysinfo/gemm_libs.h"

#include <omp.h>

#include <cctype>
#include <cstdlib>
#include <sstream>

#include "cblas.h"
#include "oneapi/dnnl/dnnl.h"

namespace sysinfo {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::string IsaName(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_mic: return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    case dnnl_cpu_isa_all: return "all";
  }
  std::ostringstream s;
  s << "isa 0x" << std::hex << static_cast<int>(isa);
  return s.str();
}

}  // namespace

std::string OneDnnIsaCap::Note(const std::string& dispatch) const {
  if (variable.empty()) return "";
  if (honoured) return "capped by " + variable + "=" + value;
  std::string accepted;
  for (const char* isa : kOneDnnIsaCaps) accepted += std::string(accepted.empty() ? "" : ", ") + isa;
  return variable + "=" + value + " is ignored by oneDNN (it accepts " + accepted + "; case-insensitive): " +
         dispatch;
}

OneDnnIsaCap ParseOneDnnIsaCap(const std::string& onednn_max_cpu_isa, const std::string& dnnl_max_cpu_isa) {
  OneDnnIsaCap cap;
  if (!onednn_max_cpu_isa.empty()) {
    cap.variable = "ONEDNN_MAX_CPU_ISA";
    cap.value = onednn_max_cpu_isa;
  } else if (!dnnl_max_cpu_isa.empty()) {
    cap.variable = "DNNL_MAX_CPU_ISA";
    cap.value = dnnl_max_cpu_isa;
  } else {
    return cap;
  }
  std::string upper = cap.value;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* isa : kOneDnnIsaCaps) cap.honoured = cap.honoured || upper == isa;
  return cap;
}

std::string GemmLibrary::Describe() const {
  std::string s = name;
  if (!version.empty()) s += " " + version;
  s += ", kernel " + (kernel.empty() ? std::string("unknown") : kernel);
  if (!note.empty()) s += " (" + note + ")";
  if (threads > 0) s += ", " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  return s;
}

GemmLibrary OpenBlasLibrary() {
  GemmLibrary lib;
  lib.name = "OpenBLAS";
  lib.config = openblas_get_config();
  // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Cooperlake MAX_THREADS=64"
  std::istringstream config(lib.config);
  std::string word;
  lib.version = "unknown";
  if (config >> word && word == "OpenBLAS") config >> lib.version;
  lib.kernel = openblas_get_corename();
  const std::string forced = Env("OPENBLAS_CORETYPE");
  lib.forced = !forced.empty();
  lib.note = lib.forced ? "forced by OPENBLAS_CORETYPE=" + forced
                        : "the library's CPU detection (OPENBLAS_CORETYPE unset)";
  lib.threads = openblas_get_num_threads();
  return lib;
}

GemmLibrary OneDnnLibrary() {
  GemmLibrary lib;
  lib.name = "oneDNN";
  const dnnl_version_t* v = dnnl_version();
  lib.version = std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
  lib.kernel = IsaName(dnnl_get_effective_cpu_isa());
  const OneDnnIsaCap cap = ParseOneDnnIsaCap(Env("ONEDNN_MAX_CPU_ISA"), Env("DNNL_MAX_CPU_ISA"));
  const std::string dispatch = "the library's CPU dispatch (JIT for the best ISA it finds)";
  lib.forced = cap.honoured;
  lib.note = cap.variable.empty() ? dispatch : cap.Note(dispatch);
  lib.threads = omp_get_max_threads();
  lib.config = "oneDNN " + lib.version + " (git " + std::string(v->hash) + "), CPU runtime " +
               (v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other");
  return lib;
}

std::vector<GemmLibrary> CpuGemmLibraries() { return {OneDnnLibrary(), OpenBlasLibrary()}; }

}  // namespace sysinfo
