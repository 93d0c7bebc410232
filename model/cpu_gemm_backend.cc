// The process-wide CPU GEMM backend and auto's per-shape choices (cpu_gemm_backend.h).
#include "model/cpu_gemm_backend.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "model/enum_names.h"

namespace model {
namespace {

std::atomic<CpuGemmBackend> g_backend{CpuGemmBackend::kOneDnn};

constexpr EnumName<CpuGemmBackend> kBackends[] = {
    {CpuGemmBackend::kOneDnn, "onednn"},
    {CpuGemmBackend::kOneDnnSgemm, "onednn_sgemm"},
    {CpuGemmBackend::kOpenBlas, "openblas"},
    {CpuGemmBackend::kAuto, "auto"},
};

struct ShapeKey {
  bool trans_a, trans_b;
  int64_t M, N, K;
  bool operator==(const ShapeKey& o) const {
    return trans_a == o.trans_a && trans_b == o.trans_b && M == o.M && N == o.N && K == o.K;
  }
};
struct ShapeKeyHash {
  size_t operator()(const ShapeKey& k) const {
    size_t h = 1469598103934665603ull;
    for (uint64_t v : {static_cast<uint64_t>(k.trans_a), static_cast<uint64_t>(k.trans_b),
                       static_cast<uint64_t>(k.M), static_cast<uint64_t>(k.N), static_cast<uint64_t>(k.K)}) {
      h = (h ^ v) * 1099511628211ull;
    }
    return h;
  }
};
using Table = std::unordered_map<ShapeKey, CpuGemmBackend, ShapeKeyHash>;

// Tables are immutable once published; every table ever published is kept (a few per process),
// so a GEMM that loaded the pointer before a replacement still reads a live table.
struct Tables {
  std::mutex mu;
  std::vector<std::unique_ptr<const Table>> all;
  std::vector<CpuGemmChoice> current;
};
Tables& TheTables() {
  static Tables* t = new Tables();
  return *t;
}
std::atomic<const Table*> g_table{nullptr};

}  // namespace

std::string CpuGemmBackendName(CpuGemmBackend b) { return NameOf(kBackends, b); }

std::string CpuGemmBackendForm(CpuGemmBackend b) {
  switch (b) {
    case CpuGemmBackend::kOneDnn:
      return "C = A·B, oneDNN matmul primitive";
    case CpuGemmBackend::kOneDnnSgemm:
      return "Cᵀ = Bᵀ·Aᵀ column-major, oneDNN dnnl_sgemm";
    case CpuGemmBackend::kOpenBlas:
      return "Cᵀ = Bᵀ·Aᵀ column-major, OpenBLAS cblas_sgemm";
    case CpuGemmBackend::kAuto:
      break;
  }
  return "the fastest of the three per shape";
}

absl::StatusOr<CpuGemmBackend> ParseCpuGemmBackend(std::string_view name, std::string_view flag) {
  if (std::optional<CpuGemmBackend> b = ValueOf(kBackends, name)) return *b;
  return absl::InvalidArgumentError(
      absl::StrCat("--", std::string(flag), "=", std::string(name),
                   ": not a CPU GEMM library; allowed: ", JoinNames(kBackends)));
}

void SetCpuGemmBackend(CpuGemmBackend b) { g_backend.store(b, std::memory_order_relaxed); }

CpuGemmBackend GetCpuGemmBackend() { return g_backend.load(std::memory_order_relaxed); }

absl::Status SetCpuGemmChoices(const std::vector<CpuGemmChoice>& choices) {
  auto table = std::make_unique<Table>();
  for (const CpuGemmChoice& c : choices) {
    if (c.backend == CpuGemmBackend::kAuto) {
      return absl::InvalidArgumentError(absl::StrCat("a CPU GEMM choice must name a library, not auto (M=", c.M,
                                                     " N=", c.N, " K=", c.K, ")"));
    }
    (*table)[ShapeKey{c.trans_a, c.trans_b, c.M, c.N, c.K}] = c.backend;
  }
  Tables& t = TheTables();
  std::lock_guard<std::mutex> lock(t.mu);
  t.all.push_back(std::move(table));
  t.current = choices;
  g_table.store(t.all.back().get(), std::memory_order_release);
  return absl::OkStatus();
}

std::vector<CpuGemmChoice> GetCpuGemmChoices() {
  Tables& t = TheTables();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.current;
}

CpuGemmBackend ResolveCpuGemmBackend(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K) {
  const CpuGemmBackend b = GetCpuGemmBackend();
  if (b != CpuGemmBackend::kAuto) return b;
  const Table* table = g_table.load(std::memory_order_acquire);
  if (table != nullptr) {
    auto it = table->find(ShapeKey{trans_a, trans_b, M, N, K});
    if (it != table->end()) return it->second;
  }
  return CpuGemmBackend::kOneDnn;
}

}  // namespace model
