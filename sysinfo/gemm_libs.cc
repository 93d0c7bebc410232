// Provenance of the CPU GEMM libraries; see gemm_libs.h.
#include "sysinfo/gemm_libs.h"

#include <cstdlib>
#include <sstream>

#include "cblas.h"

namespace sysinfo {

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
  // "OpenBLAS 0.3.21 NO_AFFINITY USE_OPENMP Haswell MAX_THREADS=64"
  std::istringstream config(openblas_get_config());
  std::string word;
  if (config >> word && word == "OpenBLAS") config >> lib.version;
  lib.kernel = openblas_get_corename();
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  lib.note = forced != nullptr && *forced != '\0'
                 ? std::string("forced by OPENBLAS_CORETYPE=") + forced
                 : "chosen by OpenBLAS for this CPU";
  lib.threads = openblas_get_num_threads();
  return lib;
}

std::vector<GemmLibrary> CpuGemmLibraries() { return {OpenBlasLibrary()}; }

}  // namespace sysinfo
