// STREAM and the DRAM memory roofs (stream.h); the kernels are measure/memory_kernels.h's.
#include "measure/stream.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/costs.h"
#include "measure/random_fill.h"
#include "sysinfo/huge_pages.h"

namespace micro {
namespace {

// On huge pages like the model's buffers (sysinfo/huge_pages.h), so that AdamW's bytes/s and
// the triad meet the same TLB.
StreamArrays::Buffer Allocate(int64_t n) {
  return StreamArrays::Buffer(static_cast<float*>(sysinfo::AllocateLarge(static_cast<size_t>(n) * sizeof(float))));
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

StreamArrays::StreamArrays(int64_t n) : n_(n) {}

absl::StatusOr<std::unique_ptr<StreamArrays>> StreamArrays::Create(int64_t bytes_per_array) {
  if (bytes_per_array < 4096) {
    return absl::InvalidArgumentError(absl::StrCat("bytes_per_array = ", bytes_per_array, "; need >= 4096"));
  }
  const int64_t n = bytes_per_array / static_cast<int64_t>(sizeof(float));
  std::unique_ptr<StreamArrays> s(new StreamArrays(n));
  for (Buffer* p : {&s->a_, &s->b_, &s->c_}) {
    *p = Allocate(n);
    if (!*p) {
      return absl::ResourceExhaustedError(absl::StrCat("cannot allocate 3 arrays of ", bytes_per_array, " bytes"));
    }
  }
  // First touch in parallel with the same static schedule as the kernels.
  FillUniform(s->a_.get(), n, 1);
  FillUniform(s->b_.get(), n, 2);
  FillUniform(s->c_.get(), n, 3);
  // One untimed pass of each warms the page tables and the threads.
  for (accounting::TrafficKind kind : accounting::kAllTrafficKinds) s->sink_ += RunTrafficKernel(kind, s->View());
  return s;
}

TrafficArrays StreamArrays::View() const { return {a_.get(), b_.get(), c_.get(), n_}; }

void StreamArrays::Trial() {
  for (accounting::TrafficKind kind : accounting::kAllTrafficKinds) {
    double out = 0;
    const double dt = Seconds([&] { out = RunTrafficKernel(kind, View()); });
    sink_ += out;
    if (dt > 0) rates_[std::string(accounting::TrafficKindName(kind))].push_back(TrafficKernelBytes(kind, n_) / dt);
  }
  ++trials_;
}

absl::Status StreamArrays::CheckCopy() {
  // The copy must copy: run it and check a sample.
  StreamCopy(b_.get(), a_.get(), n_);
  for (int64_t i = 0; i < n_; i += std::max<int64_t>(1, n_ / 1024)) {
    if (b_.get()[i] != a_.get()[i]) {
      return absl::InternalError(
          absl::StrCat("STREAM copy wrote ", b_.get()[i], " at ", i, ", expected ", a_.get()[i]));
    }
  }
  return absl::OkStatus();
}

StreamResult StreamArrays::Result() const {
  StreamResult r;
  r.elements = n_;
  r.threads = omp_get_max_threads();
  r.trials = trials_;
  for (auto [kind, v] : rates_) {
    std::sort(v.begin(), v.end());
    const double best = v.back(), median = v[v.size() / 2];
    r.roofs[kind] = best;
    r.spread[kind] = best > 0 ? (best - median) / best : 0;
  }
  if (auto it = r.roofs.find("copy"); it != r.roofs.end()) r.copy_bytes_per_s = it->second;
  if (auto it = r.roofs.find("triad"); it != r.roofs.end()) r.triad_bytes_per_s = it->second;
  return r;
}

absl::StatusOr<std::unique_ptr<ReadRoofProbe>> ReadRoofProbe::Create(int64_t bytes) {
  if (bytes < 4096) return absl::InvalidArgumentError(absl::StrCat("bytes = ", bytes, "; need >= 4096"));
  const int64_t n = bytes / static_cast<int64_t>(sizeof(float));
  std::unique_ptr<ReadRoofProbe> p(new ReadRoofProbe(n));
  p->a_ = Allocate(n);
  if (!p->a_) return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", bytes, " bytes"));
  FillUniform(p->a_.get(), n, 1);
  p->sink_ += ReadSum(p->a_.get(), n);  // warm the page tables and the threads
  return p;
}

double ReadRoofProbe::Measure(int trials) {
  double best = 0;
  for (int t = 0; t < trials; ++t) {
    double out = 0;
    const double dt = Seconds([&] { out = ReadSum(a_.get(), n_); });
    sink_ += out;
    if (dt > 0) best = std::max(best, TrafficKernelBytes(accounting::TrafficKind::kRead, n_) / dt);
  }
  return best;
}

absl::StatusOr<StreamResult> MeasureStream(int64_t bytes_per_array, int trials) {
  if (trials < 1) return absl::InvalidArgumentError(absl::StrCat("trials = ", trials, "; need >= 1"));
  absl::StatusOr<std::unique_ptr<StreamArrays>> arrays = StreamArrays::Create(bytes_per_array);
  if (!arrays.ok()) return arrays.status();
  for (int t = 0; t < trials; ++t) (*arrays)->Trial();
  if (absl::Status st = (*arrays)->CheckCopy(); !st.ok()) return st;
  const StreamResult r = (*arrays)->Result();
  std::lock_guard<std::mutex> lock(g_last_mu);
  *g_last = r;
  return r;
}

std::string StreamResult::DescribeRoofs() const {
  std::string out;
  for (accounting::TrafficKind kind : accounting::kAllTrafficKinds) {
    const std::string name(accounting::TrafficKindName(kind));
    auto it = roofs.find(name);
    if (it == roofs.end()) continue;
    auto sp = spread.find(name);
    absl::StrAppend(&out, out.empty() ? "" : ", ",
                    absl::StrFormat("%s %.1f (spread %.0f%%)", name, it->second / 1e9,
                                    sp == spread.end() ? 0.0 : 100 * sp->second));
  }
  return out.empty() ? out : absl::StrCat(out, " GB/s");
}

std::optional<StreamResult> LastMeasuredStream() {
  std::lock_guard<std::mutex> lock(g_last_mu);
  return *g_last;
}

}  // namespace micro
