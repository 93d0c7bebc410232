// CpuGemmInfo: asks oneDNN and OpenBLAS what they run here (gemm_info.h).
#include "model/gemm_info.h"

#include "absl/strings/str_cat.h"
#include "harness/json_doc.h"
#include "model/onednn_gemm.h"
#include "nlohmann/json.hpp"
#include "sysinfo/gemm_libs.h"

namespace model {
namespace {

// The library-level facts (version, kernel or ISA, how it was chosen, threads, build) come
// from sysinfo, which the run context reads too (its note is our kernel_choice); the matmul
// implementation name is the model's.
GemmInfo FromLibrary(const sysinfo::GemmLibrary& l, const std::string& backend) {
  return GemmInfo{backend, l.name, l.version, l.kernel, l.note, l.forced, l.threads, l.config};
}

GemmInfo OneDnnInfo() {
  GemmInfo g = FromLibrary(sysinfo::OneDnnLibrary(), "onednn");
  // The implementation its matmul picks for a GPT-2 Linear layer (B*T = 256, 768 -> 2304).
  const OneDnnGemmShape probe = PackedGemmShape(/*trans_a=*/false, /*trans_b=*/true, 256, 2304, 768);
  g.kernel = absl::StrCat(g.kernel, " (", OneDnnImplName(probe), ")");
  return g;
}

GemmInfo OneDnnSgemmInfo() {
  GemmInfo g = FromLibrary(sysinfo::OneDnnLibrary(), "onednn_sgemm");
  g.kernel = absl::StrCat(g.kernel, " (dnnl_sgemm: JIT gemm)");
  return g;
}

GemmInfo OpenBlasInfo() { return FromLibrary(sysinfo::OpenBlasLibrary(), "openblas"); }

// auto: both libraries, the kernel per shape (the choice table says which).
GemmInfo AutoInfo() {
  const GemmInfo d = OneDnnInfo(), o = OpenBlasInfo();
  GemmInfo g;
  g.backend = "auto";
  g.library = absl::StrCat(d.library, " + ", o.library);
  g.version = absl::StrCat(d.version, " + ", o.version);
  g.kernel = absl::StrCat("per shape: ", d.kernel, " | ", o.kernel);
  g.kernel_choice = absl::StrCat(d.kernel_choice, " | ", o.kernel_choice);
  g.forced = d.forced || o.forced;
  g.threads = d.threads;
  g.config = absl::StrCat(d.config, " | ", o.config);
  return g;
}

}  // namespace

std::string GemmInfo::ToString() const {
  return absl::StrCat(library, " ", version, ", kernel ", kernel, ", ", kernel_choice, ", ", threads,
                      " threads");
}

std::string GemmInfo::ToJson() const {
  nlohmann::json j = {{"backend", backend},
                      {"library", library},
                      {"version", version},
                      {"kernel", kernel},
                      {"kernel_choice", kernel_choice},
                      {"forced", forced},
                      {"threads", threads},
                      {"config", config}};
  return harness::DumpJson(j);
}

GemmInfo CpuGemmInfo(CpuGemmBackend b) {
  switch (b) {
    case CpuGemmBackend::kOneDnn:
      return OneDnnInfo();
    case CpuGemmBackend::kOneDnnSgemm:
      return OneDnnSgemmInfo();
    case CpuGemmBackend::kOpenBlas:
      return OpenBlasInfo();
    case CpuGemmBackend::kAuto:
      break;
  }
  return AutoInfo();
}

GemmInfo CurrentCpuGemmInfo() { return CpuGemmInfo(GetCpuGemmBackend()); }

}  // namespace model
