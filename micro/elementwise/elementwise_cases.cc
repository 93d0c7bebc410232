// The CPU and CUDA elementwise cases (elementwise_cases.h).
#include "micro/elementwise/elementwise_cases.h"

#include <chrono>

#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "micro/common/cuda_case.h"
#include "micro/elementwise/elementwise_cuda.h"
#include "sysinfo/cpu_info.h"

namespace micro {
namespace {

void CpuElementwiseCase(benchmark::State& state, ElementwiseProblem p, double footprint,
                        PeakProvider* peaks) {
  // The start-up probe runs here, before the first timed loop, never inside one.
  peaks->Cpu().status().IgnoreError();
  const int64_t slices = RotationSlices(p, footprint);
  HostElementwiseData data(p, slices);
  HostElementwiseData ref(p, 1);
  if (!data.ok() || !ref.ok()) {
    state.SkipWithError(
        absl::StrCat("cannot allocate ", slices, " slices of ", p.n, " elements for ", OpInfo(p.op).name)
            .c_str());
    return;
  }
  data.Fill();
  ref.CopySliceFrom(data, 0);
  ReferenceElementwise(p, ref.Slice(0));
  CpuElementwise(p, data.Slice(0));
  const std::string diff = CompareElementwise(p, data.Slice(0), ref.Slice(0));
  if (!diff.empty()) {
    state.SkipWithError(absl::StrCat("incorrect: ", diff).c_str());
    return;
  }
  double total = 0;
  int64_t s = 0;
  for (auto _ : state) {
    s = (s + 1) % slices;
    const ElementwiseTensors t = data.Slice(s);
    const auto t0 = std::chrono::steady_clock::now();
    CpuElementwise(p, t);
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(dt);
    total += dt;
  }
  const double seconds = total / state.iterations();
  // The rotation's span is the working set: every slice is evicted before it comes round again.
  const accounting::OpTraffic traffic = ElementwiseTraffic(p, static_cast<double>(slices) * ElementwiseByteCount(p));
  SetWorkCounters(state, peaks->CpuFor(ElementwiseFlops(p) / seconds), ElementwiseFlops(p),
                  ElementwiseByteCount(p), seconds, "", &traffic);
  state.counters["elements"] = benchmark::Counter(static_cast<double>(p.n));
  state.counters["rotation_slices"] = benchmark::Counter(static_cast<double>(slices));
}

// The op created on the device, run once and compared with the host reference; nullptr with
// *error set on failure.
std::unique_ptr<CudaElementwise> CheckedCudaElementwise(const ElementwiseProblem& p, std::string* error) {
  std::unique_ptr<CudaElementwise> op = CudaElementwise::Create(p, error);
  if (!error->empty() || op == nullptr) return nullptr;
  *error = op->RunOnce();
  HostElementwiseData got(p, 1), ref(p, 1);
  if (error->empty() && (!got.ok() || !ref.ok())) *error = "cannot allocate host copies for the check";
  if (error->empty()) *error = op->Download(got.Slice(0));
  if (!error->empty()) return nullptr;
  ref.Fill();  // the device filled slice 0 from the same seeds
  ReferenceElementwise(p, ref.Slice(0));
  const std::string diff = CompareElementwise(p, got.Slice(0), ref.Slice(0));
  if (!diff.empty()) {
    *error = absl::StrCat("incorrect: ", diff);
    return nullptr;
  }
  return op;
}

void CudaElementwiseCase(benchmark::State& state, ElementwiseProblem p, PeakProvider* peaks) {
  const std::optional<CudaCaseTiming> t = RunCudaCase(
      state, CudaWarmUp::kOnce,
      [&](const std::string&, std::string* error) { return CheckedCudaElementwise(p, error); },
      [](double) {});
  if (!t) return;
  // The L2 is flushed before each launch: DRAM (working set unknown, 0).
  const accounting::OpTraffic traffic = ElementwiseTraffic(p, 0);
  SetWorkCounters(state, peaks->Cuda(t->device, accounting::Dtype::kFp32), ElementwiseFlops(p),
                  ElementwiseByteCount(p), t->SecondsPerIteration(), "", &traffic);
  state.counters["elements"] = benchmark::Counter(static_cast<double>(p.n));
}

}  // namespace

std::vector<int64_t> CpuElementwiseSizes(SizeSet sizes) {
  if (sizes == SizeSet::kQuick) return {int64_t{1} << 12, int64_t{1} << 16};
  return {int64_t{1} << 12, int64_t{1} << 16, int64_t{1} << 20,
          int64_t{1} << 22, int64_t{1} << 24, int64_t{1} << 26};
}

std::vector<int64_t> CudaElementwiseSizes(SizeSet sizes) {
  if (sizes == SizeSet::kQuick) return {int64_t{1} << 16, int64_t{1} << 24};
  return {int64_t{1} << 16, int64_t{1} << 20, int64_t{1} << 22, int64_t{1} << 24, int64_t{1} << 26};
}

std::string ElementwiseCaseName(const char* device, ElementwiseOp op, int64_t requested_n) {
  const ElementwiseOpInfo& info = OpInfo(op);
  std::string name = absl::StrCat("BM_Elementwise/", device, "/", info.name);
  if (info.row > 0) absl::StrAppend(&name, "/C:", info.row);
  absl::StrAppend(&name, "/N:", requested_n);
  return name;
}

double CpuRotationFootprint(SizeSet sizes) {
  if (sizes == SizeSet::kQuick) return 8.0 * (1 << 20);
  const long llc = sysinfo::ReadCpuInfo().l3_bytes;
  return llc > 0 ? 4.0 * static_cast<double>(llc) : 256.0 * (1 << 20);
}

RegisteredCases RegisterElementwiseBenchmarks(SizeSet sizes, std::shared_ptr<PeakProvider> peaks) {
  RegisteredCases cases;
  PeakProvider* pp = peaks.get();
  static std::vector<std::shared_ptr<PeakProvider>>* keep = new std::vector<std::shared_ptr<PeakProvider>>();
  keep->push_back(std::move(peaks));
  const double footprint = CpuRotationFootprint(sizes);
  for (ElementwiseOp op : AllElementwiseOps()) {
    for (int64_t n : CpuElementwiseSizes(sizes)) {
      const ElementwiseProblem p = MakeElementwiseProblem(op, n);
      const std::string name = ElementwiseCaseName("cpu", op, n);
      auto* b = benchmark::RegisterBenchmark(name.c_str(), [p, footprint, pp](benchmark::State& st) {
        CpuElementwiseCase(st, p, footprint, pp);
      });
      b->UseManualTime()->Unit(benchmark::kMicrosecond);
      if (sizes == SizeSet::kQuick) b->MinTime(0.01);
      cases.names.push_back(name);
    }
  }
  for (ElementwiseOp op : AllElementwiseOps()) {
    for (int64_t n : CudaElementwiseSizes(sizes)) {
      const ElementwiseProblem p = MakeElementwiseProblem(op, n);
      auto* b = RegisterCudaCase(&cases, ElementwiseCaseName("cuda", op, n),
                                 [p, pp](benchmark::State& st) { CudaElementwiseCase(st, p, pp); });
      if (b == nullptr) continue;  // no usable CUDA device: counted as left out
      b->UseManualTime()->Unit(benchmark::kMicrosecond);
      if (sizes == SizeSet::kQuick) b->MinTime(0.01);
    }
  }
  return cases;
}

}  // namespace micro
