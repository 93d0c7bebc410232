// Which library runs the CPU model's fp32 GEMMs: oneDNN (the default) or OpenBLAS.
//
// A process-wide setting, like the thread count (threads.h): gpt_step and ddp_step set it from
// --cpu_gemm before building the model; tests switch it to compare the two. fp64 GEMMs (the
// gradient check's CpuGpt<double>) always run OpenBLAS's dgemm: oneDNN has no f64 CPU matmul.
#ifndef MODEL_CPU_GEMM_BACKEND_H_
#define MODEL_CPU_GEMM_BACKEND_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace model {

enum class CpuGemmBackend { kOneDnn, kOpenBlas };

// "onednn", "openblas".
std::string CpuGemmBackendName(CpuGemmBackend b);
// InvalidArgument naming `flag`, the value and the allowed names ("--cpu_gemm=bogus: ...").
absl::StatusOr<CpuGemmBackend> ParseCpuGemmBackend(std::string_view name, std::string_view flag = "cpu_gemm");

// The default (oneDNN) until SetCpuGemmBackend; read on every fp32 GEMM (thread-safe).
void SetCpuGemmBackend(CpuGemmBackend b);
CpuGemmBackend GetCpuGemmBackend();

// Sets the backend for a scope and restores the previous one (tests).
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
