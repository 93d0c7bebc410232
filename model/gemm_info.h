// Provenance of a CPU GEMM figure: which library ran it, its version, and the kernel it picked
// on this CPU (oneDNN's effective ISA and matmul implementation; OpenBLAS's core and whether
// OPENBLAS_CORETYPE forced it). Host-only; printed wherever a rate is (gpt_step's summary and
// JSON, the micro JSON context, //tools:devices).
#ifndef MODEL_GEMM_INFO_H_
#define MODEL_GEMM_INFO_H_

#include <string>

#include "model/cpu_gemm_backend.h"

namespace model {

struct GemmInfo {
  std::string backend;  // "onednn" | "onednn_sgemm" | "openblas" | "auto" (the --cpu_gemm value)
  std::string library;  // "oneDNN" | "OpenBLAS" | "oneDNN + OpenBLAS" (auto)
  std::string version;  // "2.6.3" | "0.3.21" | "2.6.3 + 0.3.21"
  // oneDNN: "avx512_core_bf16 (brg:avx512_core)": the effective ISA (dnnl_get_effective_cpu_isa)
  // and the implementation its matmul picks for a GPT-2 Linear shape (verbose-mode name).
  // oneDNN's dnnl_sgemm: "avx512_core_bf16 (dnnl_sgemm: JIT gemm)".
  // OpenBLAS: "Cooperlake": openblas_get_corename().
  // auto: "per shape: <oneDNN's> | <OpenBLAS's>".
  std::string kernel;
  // How the kernel was chosen: "the library's CPU dispatch", or "forced by OPENBLAS_CORETYPE=
  // Haswell" / "capped by DNNL_MAX_CPU_ISA=avx2" when the environment overrides it.
  std::string kernel_choice;
  bool forced = false;  // the environment forced or capped the kernel choice
  int threads = 0;      // threads the library will use from a single-threaded caller
  std::string config;   // the library's own build description

  // "oneDNN 2.6.3, kernel avx512_core_bf16 (brg:avx512_core), the library's CPU dispatch, 2 threads"
  std::string ToString() const;
  // {"backend": ..., "library": ..., "version": ..., "kernel": ..., "kernel_choice": ...,
  //  "forced": ..., "threads": ..., "config": ...} on one line.
  std::string ToJson() const;
};

// What `b` runs on this machine now (reads the environment and asks the library).
GemmInfo CpuGemmInfo(CpuGemmBackend b);
// The backend in force (GetCpuGemmBackend()).
GemmInfo CurrentCpuGemmInfo();

}  // namespace model

#endif  // MODEL_GEMM_INFO_H_
