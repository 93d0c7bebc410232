// The process-wide CPU GEMM backend (cpu_gemm_backend.h).
#include "model/cpu_gemm_backend.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "model/enum_names.h"

namespace model {
namespace {

std::atomic<CpuGemmBackend> g_backend{CpuGemmBackend::kOneDnn};

constexpr EnumName<CpuGemmBackend> kBackends[] = {
    {CpuGemmBackend::kOneDnn, "onednn"},
    {CpuGemmBackend::kOpenBlas, "openblas"},
};

}  // namespace

std::string CpuGemmBackendName(CpuGemmBackend b) { return NameOf(kBackends, b); }

absl::StatusOr<CpuGemmBackend> ParseCpuGemmBackend(std::string_view name, std::string_view flag) {
  if (std::optional<CpuGemmBackend> b = ValueOf(kBackends, name)) return *b;
  return absl::InvalidArgumentError(
      absl::StrCat("--", std::string(flag), "=", std::string(name),
                   ": not a CPU GEMM library; allowed: ", JoinNames(kBackends)));
}

void SetCpuGemmBackend(CpuGemmBackend b) { g_backend.store(b, std::memory_order_relaxed); }

CpuGemmBackend GetCpuGemmBackend() { return g_backend.load(std::memory_order_relaxed); }

}  // namespace model
