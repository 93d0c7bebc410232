// The CPU and CUDA matmul cases (matmul_cases.h).
#include "micro/matmul/matmul_cases.h"

#include <chrono>
#include <cstdio>
#include <iterator>
#include <cstdlib>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/costs.h"
#include "measure/random_fill.h"
#include "micro/common/cuda_case.h"
#include "micro/matmul/cuda_gemm_checked.h"
#include "micro/matmul/matmul_check.h"
#include "micro/matmul/matmul_cpu.h"
#include "measure/bf16_peak.h"
#include "model/bf16.h"
#include "model/gemm_chooser.h"
#include "model/onednn_gemm.h"

namespace micro {
namespace {

using accounting::Dtype;

constexpr int kSamples = 64;  // entries checked against the double reference

std::vector<MatmulShape> GptShapes(int64_t tokens) {
  return {{tokens, 768, 2304},
          {tokens, 768, 768},
          {tokens, 768, 3072},
          {tokens, 3072, 768},
          {tokens, 768, 50304}};
}

// from, 2 x from, 4 x from, ... up to `to`.
std::vector<int64_t> PowersOfTwo(int64_t from, int64_t to) {
  std::vector<int64_t> out;
  for (int64_t n = from; n <= to; n *= 2) out.push_back(n);
  return out;
}

// A sweep: the squares n x n x n for each of `squares`, then the GPT-2 shapes at B*T = `tokens`.
std::vector<MatmulShape> Sweep(const std::vector<int64_t>& squares, int64_t tokens) {
  std::vector<MatmulShape> out;
  for (int64_t n : squares) out.push_back({n, n, n});
  for (const MatmulShape& g : GptShapes(tokens)) out.push_back(g);
  return out;
}

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};

std::unique_ptr<float, FreeDeleter> AllocFloats(int64_t n) {
  size_t bytes = ((static_cast<size_t>(n) * sizeof(float) + 63) / 64) * 64;
  return std::unique_ptr<float, FreeDeleter>(static_cast<float*>(std::aligned_alloc(64, bytes)));
}

// C = A·B (row-major, (m, k) x (k, n)) at kSamples entries against a double dot product over the
// fp32 values of A and B, within `dtype`'s tolerance (matmul_check.h).
absl::Status CheckRowMajorSamples(Dtype dtype, const MatmulShape& s, const float* a, const float* b,
                                  const float* c) {
  const auto entries = MatmulSampleEntries(s.m, s.n, kSamples);
  std::vector<float> a_rows(entries.size() * s.k), b_cols(entries.size() * s.k), cs(entries.size());
  for (size_t e = 0; e < entries.size(); ++e) {
    const auto [i, j] = entries[e];
    for (int64_t kk = 0; kk < s.k; ++kk) {
      a_rows[e * s.k + kk] = a[i * s.k + kk];
      b_cols[e * s.k + kk] = b[kk * s.n + j];
    }
    cs[e] = c[i * s.n + j];
  }
  return CheckMatmulSamples(dtype, s.k, entries, a_rows.data(), b_cols.data(), cs.data());
}

// One `call` per iteration, timed with a steady clock as the iteration's manual time; returns the
// total seconds.
template <typename Call>
double TimeCalls(benchmark::State& state, const float* c, const Call& call) {
  double total = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    benchmark::DoNotOptimize(c[0]);
    state.SetIterationTime(dt);
    total += dt;
  }
  return total;
}

void CpuMatmulCase(benchmark::State& state, model::CpuGemmBackend library, MatmulShape s,
                   PeakProvider* peaks) {
  // The start-up probe runs here, before the first timed loop, never inside one.
  peaks->Cpu().status().IgnoreError();
  auto a = AllocFloats(s.m * s.k), b = AllocFloats(s.k * s.n), c = AllocFloats(s.m * s.n);
  if (!a || !b || !c) {
    state.SkipWithError(absl::StrCat("cannot allocate the ", s.m, "x", s.k, "x", s.n, " matrices").c_str());
    return;
  }
  FillUniform(a.get(), s.m * s.k, 11);
  FillUniform(b.get(), s.k * s.n, 12);
  FillUniform(c.get(), s.m * s.n, 13);

  // cpu/auto: the chooser's pick for this shape (model/gemm_chooser.h: each backend checked, then
  // interleaved calls, the highest median), timed below like any other backend's case.
  std::string choice;
  if (library == model::CpuGemmBackend::kAuto) {
    model::StepGemm g;
    g.name = "matmul";
    g.M = s.m, g.N = s.n, g.K = s.k;
    g.calls = 1;
    const std::vector<model::CpuGemmBackend> all(std::begin(model::kConcreteCpuGemms),
                                                 std::end(model::kConcreteCpuGemms));
    auto chosen = model::ChooseCpuGemms({g}, all, {}, /*rounds=*/5, nullptr);
    if (!chosen.ok()) {
      state.SkipWithError(std::string(chosen.status().message()).c_str());
      return;
    }
    library = (*chosen)[0].backend();
    choice = "auto chose " + model::CpuGemmBackendName(library) + " (medians in GFLOP/s:";
    for (const model::GemmCandidateRate& r : (*chosen)[0].candidates) {
      absl::StrAppend(&choice, " ", model::CpuGemmBackendName(r.backend), " ",
                      absl::StrFormat("%.1f", r.median_flops_per_s / 1e9));
    }
    absl::StrAppend(&choice, "): ");
  }
  // Check once (this run also warms up the library's threads and buffers, and creates oneDNN's
  // primitive for the shape).
  MatmulCpu(library, c.get(), a.get(), b.get(), s.m, s.k, s.n);
  absl::Status ok = CheckRowMajorSamples(Dtype::kFp32, s, a.get(), b.get(), c.get());
  if (!ok.ok()) {
    state.SkipWithError(std::string(ok.message()).c_str());
    return;
  }

  const double total = TimeCalls(state, c.get(), [&] { MatmulCpu(library, c.get(), a.get(), b.get(), s.m, s.k, s.n); });
  const double flops = accounting::MatmulFlops(s.m, s.k, s.n), seconds = total / state.iterations();
  SetWorkCounters(state, peaks->CpuFor(flops / seconds), flops, accounting::MatmulBytes(s.m, s.k, s.n, 4),
                  seconds, choice + MatmulCpuKernel(library, s.m, s.k, s.n));
}

// bf16 A and B (converted from the fp32 values once, before timing), fp32 accumulation and an fp32
// C, on oneDNN's matmul primitive as the bf16 train step runs its GEMMs; checked against the fp32
// values (not the rounded ones) within bf16's tolerance.
void CpuBf16MatmulCase(benchmark::State& state, MatmulShape s, PeakProvider* peaks) {
  peaks->CpuBf16().status().IgnoreError();
  auto a = AllocFloats(s.m * s.k), b = AllocFloats(s.k * s.n), c = AllocFloats(s.m * s.n);
  std::vector<uint16_t> a16(s.m * s.k), b16(s.k * s.n);
  if (!a || !b || !c) {
    state.SkipWithError(absl::StrCat("cannot allocate the ", s.m, "x", s.k, "x", s.n, " matrices").c_str());
    return;
  }
  FillUniform(a.get(), s.m * s.k, 11);
  FillUniform(b.get(), s.k * s.n, 12);
  FillUniform(c.get(), s.m * s.n, 13);
  model::ConvertToBf16(a.get(), a16.data(), s.m * s.k);
  model::ConvertToBf16(b.get(), b16.data(), s.k * s.n);
  model::OneDnnGemmShape shape = model::PackedGemmShape(false, false, s.m, s.n, s.k);
  shape.bf16 = true;
  model::OneDnnGemmBf16(shape, a16.data(), b16.data(), nullptr, c.get());
  absl::Status ok = CheckRowMajorSamples(Dtype::kBf16, s, a.get(), b.get(), c.get());
  if (!ok.ok()) {
    state.SkipWithError(std::string(ok.message()).c_str());
    return;
  }
  const double total =
      TimeCalls(state, c.get(), [&] { model::OneDnnGemmBf16(shape, a16.data(), b16.data(), nullptr, c.get()); });
  const double flops = accounting::MatmulFlops(s.m, s.k, s.n), seconds = total / state.iterations();
  // Bytes: bf16 A and B read, fp32 C written.
  const double bytes = 2.0 * (s.m * s.k + s.k * s.n) + 4.0 * s.m * s.n;
  SetWorkCounters(state, peaks->CpuBf16(), flops, bytes, seconds,
                  absl::StrCat("oneDNN ", model::OneDnnImplName(shape), ", bf16 x bf16 -> fp32"));
}

void CudaMatmulCase(benchmark::State& state, Dtype dtype, MatmulShape s, PeakProvider* peaks) {
  const std::optional<CudaCaseTiming> t = RunCudaCase(
      state, CudaWarmUp::kOnce,
      [&](const std::string&, std::string* error) {
        return CheckedCudaMatmul(dtype, s.m, s.k, s.n, kSamples, error);
      },
      [](double) {});
  if (!t) return;
  SetWorkCounters(state, peaks->Cuda(t->device, dtype), accounting::MatmulFlops(s.m, s.k, s.n),
                  accounting::MatmulBytes(s.m, s.k, s.n, accounting::BytesPerElement(dtype)),
                  t->SecondsPerIteration());
}

}  // namespace

std::vector<MatmulShape> CpuMatmulShapes(SizeSet sizes) {
  return sizes == SizeSet::kQuick ? Sweep({64, 128}, 16) : Sweep(PowersOfTwo(64, 4096), 1024);
}

std::vector<MatmulShape> CudaMatmulShapes(SizeSet sizes) {
  return sizes == SizeSet::kQuick ? Sweep({256, 1024}, 1024) : Sweep(PowersOfTwo(64, 16384), 12288);
}

std::vector<Dtype> CudaMatmulDtypes() { return {Dtype::kFp32, Dtype::kTf32, Dtype::kBf16, Dtype::kFp16}; }

std::string CpuMatmulDevice(model::CpuGemmBackend library) {
  return absl::StrCat("cpu/", model::CpuGemmBackendName(library));
}

std::string CpuBf16Unsupported() {
  const std::string units = DescribeCpuBf16Units();
  if (units == "none") return "this CPU has no bf16 units (neither AVX512-BF16 nor AMX-BF16)";
  absl::StatusOr<std::string> impl = model::OneDnnBf16Implementation();
  if (!impl.ok()) return std::string(impl.status().message());
  if (model::IsEmulatedBf16(*impl)) {
    return absl::StrCat("oneDNN would run bf16 as ", *impl,
                        ", without the CPU's bf16 units (is ONEDNN_MAX_CPU_ISA capped?)");
  }
  return "";
}

std::string MatmulCaseName(const char* device, Dtype dtype, const MatmulShape& s) {
  return absl::StrCat("BM_Matmul/", device, "/", std::string(accounting::DtypeName(dtype)), "/M:", s.m,
                      "/K:", s.k, "/N:", s.n);
}

std::string CpuBf16MatmulCaseName(const MatmulShape& s) {
  return absl::StrCat("BM_Matmul/cpu/onednn/bf16/out:fp32/M:", s.m, "/K:", s.k, "/N:", s.n);
}

RegisteredCases RegisterMatmulBenchmarks(SizeSet sizes, std::shared_ptr<PeakProvider> peaks) {
  RegisteredCases cases;
  PeakProvider* p = peaks.get();
  // The provider must outlive the benchmarks: keep it alive for the process.
  static std::vector<std::shared_ptr<PeakProvider>>* keep = new std::vector<std::shared_ptr<PeakProvider>>();
  keep->push_back(std::move(peaks));
  for (model::CpuGemmBackend lib : {model::CpuGemmBackend::kOneDnn, model::CpuGemmBackend::kOneDnnSgemm,
                                    model::CpuGemmBackend::kOpenBlas, model::CpuGemmBackend::kAuto}) {
    for (const MatmulShape& s : CpuMatmulShapes(sizes)) {
      const std::string name = MatmulCaseName(CpuMatmulDevice(lib).c_str(), Dtype::kFp32, s);
      auto* b = benchmark::RegisterBenchmark(
          name.c_str(), [lib, s, p](benchmark::State& st) { CpuMatmulCase(st, lib, s, p); });
      b->UseManualTime()->Unit(benchmark::kMicrosecond);
      if (sizes == SizeSet::kQuick) b->MinTime(0.01);
      cases.names.push_back(name);
    }
  }
  // bf16 on the CPU: only where it runs on bf16 units.
  if (const std::string why = CpuBf16Unsupported(); why.empty()) {
    for (const MatmulShape& s : CpuMatmulShapes(sizes)) {
      const std::string name = CpuBf16MatmulCaseName(s);
      auto* b = benchmark::RegisterBenchmark(name.c_str(),
                                             [s, p](benchmark::State& st) { CpuBf16MatmulCase(st, s, p); });
      b->UseManualTime()->Unit(benchmark::kMicrosecond);
      if (sizes == SizeSet::kQuick) b->MinTime(0.01);
      cases.names.push_back(name);
    }
  } else {
    std::fprintf(stderr, "matmul: the CPU bf16 cases (BM_Matmul/cpu/onednn/bf16/...) are not registered: %s\n",
                 why.c_str());
  }
  for (Dtype d : CudaMatmulDtypes()) {
    for (const MatmulShape& s : CudaMatmulShapes(sizes)) {
      auto* b = RegisterCudaCase(&cases, MatmulCaseName("cuda", d, s),
                                 [d, s, p](benchmark::State& st) { CudaMatmulCase(st, d, s, p); });
      if (b == nullptr) continue;  // no usable CUDA device: counted as left out
      b->UseManualTime()->Unit(benchmark::kMicrosecond);
      if (sizes == SizeSet::kQuick) b->MinTime(0.01);
    }
  }
  return cases;
}

}  // namespace micro
