// Which library runs each of the CPU model's fp32 GEMMs.
//
// Three concrete ways to compute a row-major C (M, N) = op(A) op(B):
//   onednn         oneDNN's matmul primitive computing C = A·B with a row-major dst (its brgemm
//                  kernels on AVX-512 and AMX);
//   onednn_sgemm   oneDNN's BLAS-like dnnl_sgemm, which runs the column-major Cᵀ = Bᵀ·Aᵀ (its
//                  JIT gemm kernels, a different code path and blocking);
//   openblas       OpenBLAS's cblas_sgemm, whose row-major interface is the same column-major
//                  Cᵀ = Bᵀ·Aᵀ call.
// The other two combinations have no fast path: oneDNN's matmul primitive given the swapped
// problem (a column-major dst) falls to its reference implementation in the 2.x releases (about
// 0.3 GFLOP/s), and OpenBLAS has no call that writes a row-major C as C = A·B.
//
// auto picks one of the three per GEMM shape, from rates measured on this machine
// (model/gemm_chooser.h publishes the choices here); a shape it has no choice for runs onednn.
//
// A process-wide setting, like the thread count (threads.h): gpt_step, ddp_step and gpt_decode
// set it from --cpu_gemm before building the model; tests switch it to compare. fp64 GEMMs (the
// gradient check's CpuGpt<double>) always run OpenBLAS's dgemm: oneDNN has no f64 CPU matmul.
#ifndef MODEL_CPU_GEMM_BACKEND_H_
#define MODEL_CPU_GEMM_BACKEND_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace model {

enum class CpuGemmBackend { kOneDnn, kOneDnnSgemm, kOpenBlas, kAuto };

// The three that run a GEMM themselves (not auto), in the order the chooser lists them.
inline constexpr CpuGemmBackend kConcreteCpuGemms[] = {CpuGemmBackend::kOneDnn, CpuGemmBackend::kOneDnnSgemm,
                                                       CpuGemmBackend::kOpenBlas};

// "onednn", "onednn_sgemm", "openblas", "auto".
std::string CpuGemmBackendName(CpuGemmBackend b);
// What it computes: "C = A·B, oneDNN matmul primitive", "Cᵀ = Bᵀ·Aᵀ, oneDNN dnnl_sgemm", ...
std::string CpuGemmBackendForm(CpuGemmBackend b);
// InvalidArgument naming `flag`, the value and the allowed names ("--cpu_gemm=bogus: ...").
absl::StatusOr<CpuGemmBackend> ParseCpuGemmBackend(std::string_view name, std::string_view flag = "cpu_gemm");

// The default (onednn) until SetCpuGemmBackend; read on every fp32 GEMM (thread-safe).
void SetCpuGemmBackend(CpuGemmBackend b);
CpuGemmBackend GetCpuGemmBackend();

// One shape's choice under auto. Shapes are matched on (trans_a, trans_b, M, N, K).
struct CpuGemmChoice {
  bool trans_a = false, trans_b = false;
  int64_t M = 0, N = 0, K = 0;
  CpuGemmBackend backend = CpuGemmBackend::kOneDnn;  // a concrete one
};
// Replaces the per-shape choices auto reads (thread-safe; the previous table stays valid for
// calls already reading it). Error: a choice that is auto itself.
absl::Status SetCpuGemmChoices(const std::vector<CpuGemmChoice>& choices);
std::vector<CpuGemmChoice> GetCpuGemmChoices();

// The concrete backend that runs this shape now: the setting, or under auto the shape's choice
// (onednn when it has none).
CpuGemmBackend ResolveCpuGemmBackend(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K);

// Sets the backend for a scope and restores the previous one (tests, the chooser's measurement).
class ScopedCpuGemmBackend {
 public:
  explicit ScopedCpuGemmBackend(CpuGemmBackend b) : previous_(GetCpuGemmBackend()) { SetCpuGemmBackend(b); }
  ~ScopedCpuGemmBackend() { SetCpuGemmBackend(previous_); }
  ScopedCpuGemmBackend(const ScopedCpuGemmBackend&) = delete;
  ScopedCpuGemmBackend& operator=(const ScopedCpuGemmBackend&) = delete;

 private:
  CpuGemmBackend previous_;
};

}  // namespace model

#endif  // MODEL_CPU_GEMM_BACKEND_H_
