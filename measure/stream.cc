// STREAM copy and triad (stream.h). Built with -fno-tree-loop-distribute-patterns so GCC does
// not turn the copy loop into a memcpy call (glibc's memcpy switches to non-temporal stores on
// large sizes, which would measure a different kind of traffic than every other loop here).
#include "measure/stream.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "accounting/costs.h"
#include "measure/random_fill.h"
#include "sysinfo/huge_pages.h"

namespace micro {
namespace {

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float, FreeDeleter>;

// On huge pages like the model's buffers (sysinfo/huge_pages.h), so that AdamW's bytes/s and
// the triad meet the same TLB.
Buffer Allocate(int64_t n) {
  return Buffer(static_cast<float*>(sysinfo::AllocateLarge(static_cast<size_t>(n) * sizeof(float))));
}

std::mutex g_last_mu;
std::optional<StreamResult>* g_last = new std::optional<StreamResult>();  // guarded by g_last_mu

template <typename F>
double Seconds(F&& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int64_t StreamArrayBytes(int64_t llc_bytes) {
  if (llc_bytes <= 0) return int64_t{256} << 20;
  return std::max<int64_t>(4 * llc_bytes, int64_t{64} << 20);
}

absl::StatusOr<StreamResult> MeasureStream(int64_t bytes_per_array, int trials) {
  if (bytes_per_array < 4096) {
    return absl::InvalidArgumentError(absl::StrCat("bytes_per_array = ", bytes_per_array, "; need >= 4096"));
  }
  if (trials < 1) return absl::InvalidArgumentError(absl::StrCat("trials = ", trials, "; need >= 1"));
  const int64_t n = bytes_per_array / static_cast<int64_t>(sizeof(float));
  Buffer a = Allocate(n), b = Allocate(n), c = Allocate(n);
  if (!a || !b || !c) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate 3 arrays of ", bytes_per_array, " bytes"));
  }
  // First touch in parallel with the same static schedule as the kernels.
  FillUniform(a.get(), n, 1);
  FillUniform(b.get(), n, 2);
  FillUniform(c.get(), n, 3);

  StreamResult r;
  r.elements = n;
  r.threads = omp_get_max_threads();
  r.trials = trials;
  const double copy_bytes = accounting::ElementwiseBytes(n, 1, 1, sizeof(float));
  const double triad_bytes = accounting::ElementwiseBytes(n, 2, 1, sizeof(float));
  // One untimed pass of each warms the page tables and the threads.
  StreamCopy(b.get(), a.get(), n);
  StreamTriad(a.get(), b.get(), c.get(), 0.5f, n);
  for (int t = 0; t < trials; ++t) {
    double sc = Seconds([&] { StreamCopy(b.get(), a.get(), n); });
    double st = Seconds([&] { StreamTriad(a.get(), b.get(), c.get(), 0.5f, n); });
    r.copy_bytes_per_s = std::max(r.copy_bytes_per_s, copy_bytes / sc);
    r.triad_bytes_per_s = std::max(r.triad_bytes_per_s, triad_bytes / st);
  }
  // The last copy must have copied: check a sample (the triad since rewrote a, not b).
  StreamCopy(b.get(), a.get(), n);
  for (int64_t i = 0; i < n; i += std::max<int64_t>(1, n / 1024)) {
    if (b.get()[i] != a.get()[i]) {
      return absl::InternalError(
          absl::StrCat("STREAM copy wrote ", b.get()[i], " at ", i, ", expected ", a.get()[i]));
    }
  }
  std::lock_guard<std::mutex> lock(g_last_mu);
  *g_last = r;
  return r;
}

std::optional<StreamResult> LastMeasuredStream() {
  std::lock_guard<std::mutex> lock(g_last_mu);
  return *g_last;
}

}  // namespace micro
