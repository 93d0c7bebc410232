// The process-wide CPU GEMM backend (cpu_gemm_backend.h).
#include "model/cpu_gemm_backend.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace model {
namespace {

std::atomic<CpuGemmBackend> g_backend{CpuGemmBackend::kOneDnn};

}  // namespace

std::string CpuGemmBackendName(CpuGemmBackend b) {
  return b == CpuGemmBackend::kOneDnn ? "onednn" : "openblas";
}

const std::vector<std::string>& CpuGemmBackendNames() {
  static const std::vector<std::string>* names = new std::vector<std::string>{"onednn", "openblas"};
  return *names;
}

absl::StatusOr<CpuGemmBackend> ParseCpuGemmBackend(std::string_view name, std::string_view flag) {
  if (name == "onednn") return CpuGemmBackend::kOneDnn;
  if (name == "openblas") return CpuGemmBackend::kOpenBlas;
  return absl::InvalidArgumentError(
      absl::StrCat("--", std::string(flag), "=", std::string(name),
                   ": not a CPU GEMM library; allowed: ", absl::StrJoin(CpuGemmBackendNames(), ", ")));
}

void SetCpuGemmBackend(CpuGemmBackend b) { g_backend.store(b, std::memory_order_relaxed); }

CpuGemmBackend GetCpuGemmBackend() { return g_backend.load(std::memory_order_relaxed); }

}  // namespace model
