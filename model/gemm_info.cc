// CpuGemmInfo: asks oneDNN and OpenBLAS what they run here (gemm_info.h).
#include "model/gemm_info.h"

#include <cblas.h>
#include <omp.h>

#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "model/onednn_gemm.h"
#include "nlohmann/json.hpp"
#include "oneapi/dnnl/dnnl.h"

namespace model {
namespace {

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
  return absl::StrCat("isa 0x", absl::Hex(static_cast<int>(isa)));
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

GemmInfo OneDnnInfo() {
  GemmInfo g;
  g.backend = "onednn";
  g.library = "oneDNN";
  const dnnl_version_t* v = dnnl_version();
  g.version = absl::StrCat(v->major, ".", v->minor, ".", v->patch);
  // The implementation its matmul picks for a GPT-2 Linear layer (B*T = 256, 768 -> 2304).
  OneDnnGemmShape probe;
  probe.trans_b = true;
  probe.M = 256;
  probe.N = 2304;
  probe.K = 768;
  probe.lda = 768;
  probe.ldb = 768;
  probe.ldc = 2304;
  g.kernel = absl::StrCat(IsaName(dnnl_get_effective_cpu_isa()), " (", OneDnnImplName(probe), ")");
  const std::string cap = Env("DNNL_MAX_CPU_ISA").empty() ? Env("ONEDNN_MAX_CPU_ISA")
                                                           : Env("DNNL_MAX_CPU_ISA");
  g.forced = !cap.empty();
  g.kernel_choice = g.forced ? absl::StrCat("capped by DNNL_MAX_CPU_ISA=", cap)
                             : "the library's CPU dispatch (JIT for the best ISA it finds)";
  g.threads = omp_get_max_threads();
  g.config = absl::StrCat("oneDNN ", g.version, " (git ", v->hash, "), CPU runtime ",
                          v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other");
  return g;
}

GemmInfo OpenBlasInfo() {
  GemmInfo g;
  g.backend = "openblas";
  g.library = "OpenBLAS";
  g.config = openblas_get_config();
  // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Cooperlake MAX_THREADS=64"
  std::vector<std::string> words = absl::StrSplit(g.config, ' ', absl::SkipEmpty());
  g.version = words.size() >= 2 && words[0] == "OpenBLAS" ? words[1] : "unknown";
  g.kernel = openblas_get_corename();
  const std::string forced = Env("OPENBLAS_CORETYPE");
  g.forced = !forced.empty();
  g.kernel_choice = g.forced ? absl::StrCat("forced by OPENBLAS_CORETYPE=", forced)
                             : "the library's CPU detection (OPENBLAS_CORETYPE unset)";
  g.threads = openblas_get_num_threads();
  return g;
}

}  // namespace

std::string GemmInfo::ToString() const {
  return absl::StrCat(library, " ", version, ", kernel ", kernel, ", ", kernel_choice, ", ",
                      threads, " threads");
}

std::string GemmInfo::ToJson() const {
  nlohmann::json j = {{"backend", backend}, {"library", library}, {"version", version},
                      {"kernel", kernel},   {"kernel_choice", kernel_choice},
                      {"forced", forced},   {"threads", threads}, {"config", config}};
  return j.dump();
}

GemmInfo CpuGemmInfo(CpuGemmBackend b) {
  return b == CpuGemmBackend::kOneDnn ? OneDnnInfo() : OpenBlasInfo();
}

GemmInfo CurrentCpuGemmInfo() { return CpuGemmInfo(GetCpuGemmBackend()); }

}  // namespace model
