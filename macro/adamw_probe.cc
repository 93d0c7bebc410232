// MeasureAdamW (adamw_probe.h).
#include "macro/adamw_probe.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "accounting/step_floor.h"
#include "measure/random_fill.h"
#include "model/adamw_cpu.h"
#include "sysinfo/huge_pages.h"

namespace macro {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

}  // namespace

absl::StatusOr<AdamWProbe> MeasureAdamW(int64_t bytes_per_array, int passes, bool bf16_copy) {
  if (bytes_per_array < 4096) {
    return absl::InvalidArgumentError(absl::StrCat("bytes_per_array=", bytes_per_array, ": need >= 4096"));
  }
  if (passes < 1) return absl::InvalidArgumentError(absl::StrCat("passes=", passes, ": need >= 1"));
  const int64_t n = bytes_per_array / static_cast<int64_t>(sizeof(float));
  std::vector<std::unique_ptr<float, FreeDeleter>> arrays;
  for (int i = 0; i < 4; ++i) {
    arrays.emplace_back(static_cast<float*>(sysinfo::AllocateLarge(static_cast<size_t>(n) * sizeof(float))));
    if (arrays.back() == nullptr) {
      return absl::ResourceExhaustedError(absl::StrCat("cannot allocate 4 arrays of ", bytes_per_array, " bytes"));
    }
    micro::FillUniform(arrays.back().get(), n, 11 + i, /*positive=*/i == 3);  // v >= 0
  }
  std::unique_ptr<uint16_t, FreeDeleter> copy;
  if (bf16_copy) {
    copy.reset(static_cast<uint16_t*>(sysinfo::AllocateLarge(static_cast<size_t>(n) * sizeof(uint16_t))));
    if (copy == nullptr) return absl::ResourceExhaustedError("cannot allocate the bf16 copy");
  }
  float* p = arrays[0].get();
  const float* g = arrays[1].get();
  float *m = arrays[2].get(), *v = arrays[3].get();
  double best = 0;
  for (int pass = 0; pass <= passes; ++pass) {  // pass 0 is untimed: first touch of the copy, warm-up
    const auto t0 = std::chrono::steady_clock::now();
    if (bf16_copy) {
      model::adamw_update_bf16_copy(p, copy.get(), g, m, v, n, 1e-4f, 0.9f, 0.95f, 1e-8f, 0.1f, pass + 1);
    } else {
      model::adamw_update<float>(p, g, m, v, n, 1e-4f, 0.9f, 0.95f, 1e-8f, 0.1f, pass + 1);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (pass > 0 && s > 0) best = std::max(best, 1 / s);
  }
  AdamWProbe r;
  r.params = n;
  r.bytes_per_param = bf16_copy ? accounting::kAdamWBytesPerBf16CopyParam : accounting::kAdamWBytesPerFp32Param;
  r.bytes_per_s = best * static_cast<double>(n) * r.bytes_per_param;
  r.passes = passes;
  if (!std::isfinite(r.bytes_per_s) || !(r.bytes_per_s > 0)) {
    return absl::InternalError(absl::StrCat("AdamW probe: a non-finite or zero rate (", r.bytes_per_s, ")"));
  }
  if (!std::isfinite(p[0]) || !std::isfinite(p[n - 1])) {
    return absl::InternalError("AdamW probe: the update produced a non-finite parameter");
  }
  return r;
}

}  // namespace macro
