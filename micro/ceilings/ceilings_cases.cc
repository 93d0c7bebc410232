// The ceilings cases and the recorder (ceilings_cases.h).
#include "micro/ceilings/ceilings_cases.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/costs.h"
#include "accounting/cpu_peak.h"
#include "accounting/peaks.h"
#include "harness/skip.h"
#include "measure/cache_sweep.h"
#include "measure/cpu_ceilings.h"
#include "measure/random_fill.h"
#include "micro/ceilings/copy_cuda.h"
#include "micro/common/cuda_case.h"
#include "micro/matmul/cuda_gemm_checked.h"
#include "micro/matmul/matmul_cpu.h"
#include "model/cpu_gemm_backend.h"
#include "model/gpt_config.h"
#include "model/step_gemms.h"
#include "sysinfo/cpu_info.h"
#include "sysinfo/utc_now.h"

namespace micro {
namespace {

using accounting::Dtype;

// Mean and best rates, and the percentage of a reference peak when there is one.
void SetCeilingCounters(benchmark::State& state, const char* unit, double work, double total_s,
                        double best_rate, const absl::StatusOr<accounting::Peak>& ref,
                        bool ref_is_bandwidth) {
  using benchmark::Counter;
  const double mean_rate = total_s > 0 ? work * state.iterations() / total_s : 0;
  state.counters[absl::StrCat(unit, "/s")] = Counter(mean_rate);
  state.counters[absl::StrCat("best_", unit, "/s")] = Counter(best_rate);
  state.counters["verified"] = Counter(1);
  const double peak = ref.ok() ? (ref_is_bandwidth ? ref->bytes_per_s : ref->flops_per_s) : 0;
  if (peak > 0) {
    state.counters["pct_of_peak"] = Counter(100.0 * best_rate / peak);
    state.SetLabel(absl::StrCat("best vs ", ref->source));
  } else {
    state.SetLabel(ref.ok() ? "no reference peak"
                            : absl::StrCat("no reference peak: ", ref.status().message()));
  }
}

void FmaCase(benchmark::State& state, FmaIsa isa, double seconds, CeilingRecorder* rec) {
  if (!FmaIsaSupported(isa)) {
    state.SkipWithError(
        harness::SkipMessage(absl::StrCat("this CPU does not support ", FmaIsaName(isa))).c_str());
    return;
  }
  absl::StatusOr<int64_t> calibrated = CalibrateFmaSteps(isa, seconds);
  if (!calibrated.ok()) {
    state.SkipWithError(std::string(calibrated.status().message()).c_str());
    return;
  }
  const int64_t steps = *calibrated;
  absl::StatusOr<FmaPeakResult> r;
  double total = 0, best = 0, flops = 0;
  int threads = 0;
  for (auto _ : state) {
    r = RunFmaLoop(isa, steps);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    state.SetIterationTime(r->seconds);
    total += r->seconds;
    best = std::max(best, r->flops_per_s);
    flops = r->flops;
    threads = r->threads;
    rec->RecordFma(*r);
  }
  const sysinfo::CpuInfo cpu = sysinfo::ReadCpuInfo();
  accounting::CpuPeakDeclaration d;
  d.cores = threads;
  d.fma_lanes = isa == FmaIsa::kAvx512 ? 16 : 8;
  d.fma_units_per_core = 2;
  d.clock_hz = cpu.mhz * 1e6;
  SetCeilingCounters(state, "FLOP", flops, total, best, accounting::CpuDeclaredPeak(d), false);
}

void Bf16Case(benchmark::State& state, Bf16Isa isa, double seconds, CeilingRecorder* rec) {
  absl::StatusOr<Bf16PeakResult> r = MeasureBf16Peak(isa, seconds, 1);  // calibrates; the error says why not
  if (!r.ok()) {
    state.SkipWithError(harness::SkipMessage(std::string(r.status().message())).c_str());
    return;
  }
  const int64_t steps = static_cast<int64_t>(r->flops / r->threads / Bf16FlopsPerStep(isa));
  double total = 0, best = 0, flops = 0;
  for (auto _ : state) {
    r = RunBf16Loop(isa, steps);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    state.SetIterationTime(r->seconds);
    total += r->seconds;
    best = std::max(best, r->flops_per_s);
    flops = r->flops;
    rec->RecordBf16(*r);
  }
  // A CPU has no bf16 datasheet here: the fp32 FMA peak of this run is the reference, so
  // pct_of_peak reads as how many times the fp32 rate the bf16 units reach.
  SetCeilingCounters(state, "FLOP", flops, total, best, rec->CpuFmaPeak(), false);
  state.SetLabel(absl::StrCat(Bf16IsaInstruction(isa), " loop; pct_of_peak: of ",
                              rec->CpuFmaPeak().ok() ? "the fp32 FMA peak of this run" : "no fp32 peak in this run"));
}

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};

void StreamCase(benchmark::State& state, bool triad, int64_t bytes_per_array, CeilingRecorder* rec) {
  const int64_t n = bytes_per_array / 4;
  const size_t alloc = ((static_cast<size_t>(n) * 4 + 63) / 64) * 64;
  std::unique_ptr<float, FreeDeleter> a(static_cast<float*>(std::aligned_alloc(64, alloc)));
  std::unique_ptr<float, FreeDeleter> b(static_cast<float*>(std::aligned_alloc(64, alloc)));
  std::unique_ptr<float, FreeDeleter> c(static_cast<float*>(std::aligned_alloc(64, alloc)));
  if (!a || !b || !c) {
    state.SkipWithError(absl::StrCat("cannot allocate 3 arrays of ", bytes_per_array, " bytes").c_str());
    return;
  }
  FillUniform(a.get(), n, 1);
  FillUniform(b.get(), n, 2);
  FillUniform(c.get(), n, 3);
  // Check the kernel once, then warm up.
  if (triad) {
    StreamTriad(a.get(), b.get(), c.get(), 0.5f, n);
  } else {
    StreamCopy(b.get(), a.get(), n);
  }
  for (int64_t i = 0; i < n; i += std::max<int64_t>(1, n / 4096)) {
    const float want = triad ? HashUniform(2, i) + 0.5f * HashUniform(3, i) : HashUniform(1, i);
    const float got = triad ? a.get()[i] : b.get()[i];
    if (got != want) {
      state.SkipWithError(absl::StrCat("incorrect STREAM ", triad ? "triad" : "copy", " at ", i, ": got ",
                                       got, ", expected ", want)
                              .c_str());
      return;
    }
  }
  const double bytes = accounting::ElementwiseBytes(n, triad ? 2 : 1, 1, 4);
  double total = 0, best = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    if (triad) {
      StreamTriad(a.get(), b.get(), c.get(), 0.5f, n);
    } else {
      StreamCopy(b.get(), a.get(), n);
    }
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(dt);
    total += dt;
    best = std::max(best, bytes / dt);
    rec->RecordStream(triad, n, bytes / dt);
  }
  SetCeilingCounters(state, "bytes", bytes, total, best,
                     absl::NotFoundError("a CPU has no datasheet bandwidth here"), true);
  // Arrays under STREAM's 4x the last-level cache (--sizes=quick): say so on the case, as the
  // ceilings file does (bandwidth_cache_resident).
  const int64_t llc = sysinfo::ReadCpuInfo().l3_bytes;
  if (accounting::StreamFigureIsCacheResident(bytes_per_array, llc)) {
    state.SetLabel(absl::StrFormat("CACHE-RESIDENT: %.0f MiB arrays, under 4x the last-level cache (%.0f MiB): "
                                   "not a memory bandwidth",
                                   bytes_per_array / 1048576.0, llc / 1048576.0));
  }
}

// Every kind's DRAM roof, one trial (the five kernels in turn) an iteration.
void MemoryRoofsCase(benchmark::State& state, int64_t bytes_per_array, CeilingRecorder* rec) {
  absl::StatusOr<std::unique_ptr<StreamArrays>> arrays = StreamArrays::Create(bytes_per_array);
  if (!arrays.ok()) {
    state.SkipWithError(std::string(arrays.status().message()).c_str());
    return;
  }
  if (absl::Status st = (*arrays)->CheckCopy(); !st.ok()) {
    state.SkipWithError(std::string(st.message()).c_str());
    return;
  }
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    (*arrays)->Trial();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const StreamResult r = (*arrays)->Result();
  rec->RecordMemoryRoofs(r);
  for (const auto& [kind, v] : r.roofs) {
    state.counters[absl::StrCat(kind, "_bytes/s")] = benchmark::Counter(v);
    state.counters[absl::StrCat(kind, "_spread")] = benchmark::Counter(r.spread.at(kind));
  }
  state.counters["verified"] = benchmark::Counter(1);
  const int64_t llc = sysinfo::ReadCpuInfo().l3_bytes;
  state.SetLabel(accounting::StreamFigureIsCacheResident(bytes_per_array, llc)
                     ? absl::StrFormat("CACHE-RESIDENT: %.0f MiB arrays, under 4x the last-level cache (%.0f MiB): "
                                       "not memory roofs",
                                       bytes_per_array / 1048576.0, llc / 1048576.0)
                     : absl::StrCat("best of ", r.trials, " interleaved trials: ", r.DescribeRoofs()));
}

// The working-set sweep, once: the cache levels and each kind's roof at each.
void CacheSweepCase(benchmark::State& state, bool quick, CeilingRecorder* rec) {
  CacheSweepOptions o;
  if (quick) {  // a smoke test of the sweep, not a measurement: 16 KiB to 4 MiB, one trial
    o.max_bytes = int64_t{4} << 20;
    o.trials = 1;
    o.seconds_per_trial = 0.0005;
  }
  absl::StatusOr<CacheSweepResult> r;
  for (auto _ : state) {
    r = MeasureCacheSweep(o);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    state.SetIterationTime(r->seconds);
  }
  rec->RecordCacheLevels(r->levels, r->method);
  for (size_t i = 0; i < r->levels.size(); ++i) {
    const accounting::CacheLevel& level = r->levels[i];
    state.counters[absl::StrCat("level", i + 1, "_capacity_bytes")] = benchmark::Counter(level.capacity_bytes);
    for (const auto& [kind, v] : level.bytes_per_s) {
      state.counters[absl::StrCat("level", i + 1, "_", kind, "_bytes/s")] = benchmark::Counter(v);
    }
  }
  state.counters["levels"] = benchmark::Counter(static_cast<double>(r->levels.size()));
  state.counters["verified"] = benchmark::Counter(1);
  state.SetLabel(r->method);
}

// A CUDA ceiling case: RunCudaCase on the kernel `create(error)` makes (checked before it is
// timed); each trial's rate (work / seconds) is kept for the best and passed to
// `record(device, rate)`; then the counters against `datasheet(device)`.
template <typename Create, typename Record, typename Datasheet>
void RunCudaCeilingCase(benchmark::State& state, CudaWarmUp warm, const char* unit, double work,
                        bool ref_is_bandwidth, Create create, Record record, Datasheet datasheet) {
  double best = 0;
  std::string device;
  const std::optional<CudaCaseTiming> t = RunCudaCase(
      state, warm,
      [&](const std::string& name, std::string* error) {
        device = name;
        return create(error);
      },
      [&](double dt) {
        best = std::max(best, work / dt);
        record(device, work / dt);
      });
  if (!t) return;
  SetCeilingCounters(state, unit, work, t->total_s, best, datasheet(t->device), ref_is_bandwidth);
}

void CudaCopyCase(benchmark::State& state, int64_t bytes, CeilingRecorder* rec) {
  const double moved = 2.0 * static_cast<double>(bytes);  // read + write, as STREAM copy
  RunCudaCeilingCase(
      state, CudaWarmUp::kNone, "bytes", moved, true,
      [&](std::string* error) {
        std::unique_ptr<CudaCopy> copy = CudaCopy::Create(bytes, error);
        if (error->empty() && copy != nullptr) *error = copy->Verify();
        if (!error->empty()) copy.reset();
        return copy;
      },
      [&](const std::string& device, double rate) { rec->RecordCudaCopy(device, bytes, rate); },
      [](const std::string& device) { return accounting::DatasheetBandwidth(device); });
}

void CudaGemmCase(benchmark::State& state, Dtype dtype, int64_t size, CeilingRecorder* rec) {
  RunCudaCeilingCase(
      state, CudaWarmUp::kOnce, "FLOP", accounting::MatmulFlops(size, size, size), false,
      [&](std::string* error) { return CheckedCudaMatmul(dtype, size, size, size, 32, error); },
      [&](const std::string& device, double rate) {
        rec->RecordCudaGemm(device, std::string(accounting::DtypeName(dtype)), size, rate);
      },
      [dtype](const std::string& device) { return accounting::DatasheetPeak(device, dtype); });
}

// One GEMM of the CPU train step, through the model's own call on the chosen library.
void CpuGemmCase(benchmark::State& state, model::CpuGemmBackend lib, model::StepGemm g,
                 CeilingRecorder* rec) {
  model::ScopedCpuGemmBackend scope(lib);
  model::StepGemmRunner runner(g);
  if (absl::Status checked = runner.RunAndCheck(); !checked.ok()) {
    state.SkipWithError(std::string(checked.message()).c_str());
    return;
  }
  double total = 0, best = 0;
  for (auto _ : state) {
    const double dt = runner.TimeOnce();
    state.SetIterationTime(dt);
    total += dt;
    if (dt > 0) best = std::max(best, g.flops_per_call() / dt);
  }
  rec->RecordCpuGemm(g.Key(lib), best);
  SetCeilingCounters(state, "FLOP", g.flops_per_call(), total, best, rec->CpuFmaPeak(), false);
  state.SetLabel(
      absl::StrCat(micro::MatmulCpuKernel(lib, g.M, g.K, g.N), "; ", g.name, " x", g.calls, " per step; ",
                   rec->CpuFmaPeak().ok() ? "best vs the FMA peak of this run" : "no FMA peak in this run"));
}

}  // namespace

absl::StatusOr<accounting::Peak> CeilingRecorder::CpuFmaPeak() const {
  std::lock_guard<std::mutex> lock(mu_);
  double best = 0;
  if (avx2_) best = std::max(best, avx2_->flops_per_s);
  if (avx512_) best = std::max(best, avx512_->flops_per_s);
  if (!(best > 0)) return absl::FailedPreconditionError("no FMA case ran before");
  accounting::Peak p;
  p.flops_per_s = best;
  p.source = "the best FMA trial of this run";
  return p;
}

void CeilingRecorder::RecordCpuGemm(const std::string& key, double flops_per_s) {
  std::lock_guard<std::mutex> lock(mu_);
  double& slot = cpu_gemm_flops_[key];
  slot = std::max(slot, flops_per_s);
}

void CeilingRecorder::RecordFma(const FmaPeakResult& r) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = r.isa == FmaIsa::kAvx512 ? avx512_ : avx2_;
  if (!slot || r.flops_per_s > slot->flops_per_s) slot = r;
}

void CeilingRecorder::RecordBf16(const Bf16PeakResult& r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!bf16_ || r.flops_per_s > bf16_->flops_per_s) bf16_ = r;
}

void CeilingRecorder::RecordStream(bool triad, int64_t elements, double bytes_per_s) {
  std::lock_guard<std::mutex> lock(mu_);
  stream_.elements = elements;
  stream_.threads = 0;
  double& slot = triad ? stream_.triad_bytes_per_s : stream_.copy_bytes_per_s;
  slot = std::max(slot, bytes_per_s);
  if (!triad) stream_.trials = ++stream_trials_;
}

void CeilingRecorder::RecordMemoryRoofs(const StreamResult& r) {
  std::lock_guard<std::mutex> lock(mu_);
  roofs_ = r;
}

void CeilingRecorder::RecordCacheLevels(const std::vector<accounting::CacheLevel>& levels,
                                        const std::string& method) {
  std::lock_guard<std::mutex> lock(mu_);
  cache_levels_ = levels;
  cache_method_ = method;
}

void CeilingRecorder::RecordCudaCopy(const std::string& device, int64_t bytes, double bytes_per_s) {
  std::lock_guard<std::mutex> lock(mu_);
  device_ = device;
  copy_bytes_ = bytes;
  copy_bytes_per_s_ = std::max(copy_bytes_per_s_, bytes_per_s);
  ++copy_trials_;
}

void CeilingRecorder::RecordCudaGemm(const std::string& device, const std::string& dtype, int64_t size,
                                     double flops_per_s) {
  std::lock_guard<std::mutex> lock(mu_);
  device_ = device;
  gemm_size_ = size;
  double& slot = gemm_flops_[dtype];
  slot = std::max(slot, flops_per_s);
}

bool CeilingRecorder::HasCpu() const {
  std::lock_guard<std::mutex> lock(mu_);
  return (avx2_ || avx512_) && stream_.copy_bytes_per_s > 0;
}

bool CeilingRecorder::HasCuda() const {
  std::lock_guard<std::mutex> lock(mu_);
  return copy_bytes_per_s_ > 0 && !gemm_flops_.empty();
}

absl::StatusOr<accounting::Ceilings> CeilingRecorder::CpuCeilings() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!avx2_ && !avx512_) {
    return absl::FailedPreconditionError(
        "no CPU FMA case ran (BM_Ceiling/cpu/fma/...): check --benchmark_filter");
  }
  if (!(stream_.copy_bytes_per_s > 0)) {
    return absl::FailedPreconditionError(
        "no STREAM copy case ran (BM_Ceiling/cpu/stream_copy/...): check --benchmark_filter");
  }
  CpuCeilingsResult r;
  r.avx2 = avx2_;
  r.avx512 = avx512_;
  r.stream = stream_;
  // The memory roofs case measured copy and triad too, on arrays of the same size: the file's
  // STREAM figures are the best trial of either case, so that its copy roof and its bandwidth agree.
  if (roofs_ && roofs_->elements == stream_.elements) {
    r.stream.roofs = roofs_->roofs;
    r.stream.spread = roofs_->spread;
    r.stream.copy_bytes_per_s = std::max(r.stream.copy_bytes_per_s, roofs_->copy_bytes_per_s);
    r.stream.triad_bytes_per_s = std::max(r.stream.triad_bytes_per_s, roofs_->triad_bytes_per_s);
    r.stream.roofs["copy"] = r.stream.copy_bytes_per_s;
    r.stream.roofs["triad"] = r.stream.triad_bytes_per_s;
  }
  absl::StatusOr<accounting::Ceilings> c = PackCpuCeilings(
      avx2_, avx512_, r.stream,
      absl::StrCat("//micro:ceilings: ", DescribeCpuMethod(r),
                   cpu_gemm_flops_.empty() ? "" : "; train-step GEMMs per library", "; best trial of each"));
  if (c.ok()) {
    c->gemm_flops_per_s = cpu_gemm_flops_;
    if (!cache_levels_.empty()) {
      c->memory.cache_levels = cache_levels_;
      absl::StrAppend(&c->method, "; cache levels: ", cache_method_);
    }
    if (bf16_) {
      c->peak_flops["bf16"] = bf16_->flops_per_s;
      c->method += absl::StrFormat("; bf16: %s %s loop on %d threads", Bf16IsaName(bf16_->isa),
                                   Bf16IsaInstruction(bf16_->isa), bf16_->threads);
    }
  }
  return c;
}

absl::StatusOr<accounting::Ceilings> CeilingRecorder::CudaCeilings() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!(copy_bytes_per_s_ > 0) || gemm_flops_.empty()) {
    return absl::FailedPreconditionError(
        "the GPU ceilings need BM_Ceiling/cuda/copy_d2d and at least one BM_Ceiling/cuda/gemm "
        "case to have run (no device, or --benchmark_filter excluded them)");
  }
  accounting::Ceilings c;
  c.machine = device_;
  c.peak_flops = gemm_flops_;
  c.bandwidth_bytes_per_s = copy_bytes_per_s_;
  c.method = absl::StrFormat(
      "//micro:ceilings: cuBLAS GEMM M=N=K=%d per dtype (fp32 accumulate, L2 flushed, cudaEvent "
      "timing); cudaMemcpy device-to-device %.0f MiB, 2 x bytes counted; best of %d+ trials",
      gemm_size_, copy_bytes_ / 1048576.0, copy_trials_);
  c.date = sysinfo::UtcNow();
  return c;
}

RegisteredCases RegisterCeilingsBenchmarks(SizeSet sizes, CeilingRecorder* recorder) {
  RegisteredCases cases;
  const bool quick = sizes == SizeSet::kQuick;
  auto options = [&](benchmark::internal::Benchmark* b) {
    b->UseManualTime()->Unit(benchmark::kMillisecond);
    if (quick) b->MinTime(0.01);
  };
  auto reg = [&](const std::string& name, auto fn) {
    options(benchmark::RegisterBenchmark(name.c_str(), fn));
    cases.names.push_back(name);
  };
  // CUDA cases: only where a CUDA device is usable (cuda_case.h), else counted as left out.
  auto reg_cuda = [&](const std::string& name, std::function<void(benchmark::State&)> fn) {
    if (auto* b = RegisterCudaCase(&cases, name, std::move(fn))) options(b);
  };
  const double fma_seconds = quick ? 0.002 : 0.05;
  reg("BM_Ceiling/cpu/fma/avx2",
      [=](benchmark::State& st) { FmaCase(st, FmaIsa::kAvx2, fma_seconds, recorder); });
  reg("BM_Ceiling/cpu/fma/avx512",
      [=](benchmark::State& st) { FmaCase(st, FmaIsa::kAvx512, fma_seconds, recorder); });
  for (Bf16Isa isa : {Bf16Isa::kAvx512Bf16, Bf16Isa::kAmx}) {
    reg(absl::StrCat("BM_Ceiling/cpu/bf16/", Bf16IsaKey(isa)),
        [=](benchmark::State& st) { Bf16Case(st, isa, fma_seconds, recorder); });
  }
  const int64_t stream_bytes = quick ? int64_t{4} << 20 : StreamArrayBytes(sysinfo::ReadCpuInfo().l3_bytes);
  reg(absl::StrCat("BM_Ceiling/cpu/stream_copy/bytes:", stream_bytes),
      [=](benchmark::State& st) { StreamCase(st, false, stream_bytes, recorder); });
  reg(absl::StrCat("BM_Ceiling/cpu/stream_triad/bytes:", stream_bytes),
      [=](benchmark::State& st) { StreamCase(st, true, stream_bytes, recorder); });
  // The memory roofs take 20 s of trials (full sizes): a shared VM's memory bandwidth moves between
  // slow and fast spells of tens of seconds (the copy roof read 25.5, 25.5 and 37.0 GB/s in three
  // runs a minute apart on a 2-core Zen 3 VM), and a roof must come from a fast one.
  {
    const std::string name = absl::StrCat("BM_Ceiling/cpu/memory_roofs/bytes:", stream_bytes);
    auto* b = benchmark::RegisterBenchmark(
        name.c_str(), [=](benchmark::State& st) { MemoryRoofsCase(st, stream_bytes, recorder); });
    options(b);
    if (!quick) b->MinTime(20);
    cases.names.push_back(name);
  }
  // One iteration, no MinTime (Google Benchmark refuses both on one case: a CHECK in its debug build).
  benchmark::RegisterBenchmark("BM_Ceiling/cpu/cache_sweep",
                               [=](benchmark::State& st) { CacheSweepCase(st, quick, recorder); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1);
  cases.names.push_back("BM_Ceiling/cpu/cache_sweep");
  // The GEMMs of gpt_step's default CPU step, per backend (gpt_step --ceilings reads them; with
  // all three at a shape, --cpu_gemm=auto chooses from the file without measuring).
  const model::GptConfig step_model = *model::GptPreset(quick ? "test-tiny" : "gpt2");
  for (model::CpuGemmBackend lib : model::kConcreteCpuGemms) {
    for (const model::StepGemm& g : model::CpuStepGemms(step_model, quick ? 2 : 4, quick ? 8 : 64)) {
      reg(absl::StrCat("BM_Ceiling/cpu/gemm/", g.Key(lib)),
          [=](benchmark::State& st) { CpuGemmCase(st, lib, g, recorder); });
    }
  }
  const int64_t copy_bytes = quick ? int64_t{64} << 20 : int64_t{1} << 30;
  reg_cuda(absl::StrCat("BM_Ceiling/cuda/copy_d2d/bytes:", copy_bytes),
           [=](benchmark::State& st) { CudaCopyCase(st, copy_bytes, recorder); });
  const int64_t gemm = quick ? 1024 : 8192;
  for (Dtype d : {Dtype::kFp32, Dtype::kTf32, Dtype::kBf16, Dtype::kFp16}) {
    reg_cuda(absl::StrCat("BM_Ceiling/cuda/gemm/", std::string(accounting::DtypeName(d)), "/M:", gemm,
                          "/K:", gemm, "/N:", gemm),
             [=](benchmark::State& st) { CudaGemmCase(st, d, gemm, recorder); });
  }
  return cases;
}

absl::Status WriteRecordedCeilings(const CeilingRecorder& recorder, const MicroFlags& flags) {
  auto write = [](const std::string& path, absl::StatusOr<accounting::Ceilings> c,
                  const char* what) -> absl::Status {
    if (!c.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot write ", what, " ceilings to ", path, ": ", c.status().message()));
    }
    absl::Status s = accounting::WriteCeilings(path, *c);
    if (s.ok()) std::fprintf(stderr, "wrote %s ceilings to %s\n", what, path.c_str());
    if (s.ok() && c->bandwidth_cache_resident) {
      std::fprintf(stderr,
                   "note: its STREAM bandwidth (%.1f GB/s) was measured on %.0f MiB arrays, under 4x the "
                   "last-level cache: labelled cache-resident (bandwidth_cache_resident), never used as a "
                   "memory bound; run without --sizes=quick for a DRAM figure\n",
                   c->bandwidth_bytes_per_s / 1e9, c->stream_array_bytes / 1048576.0);
    }
    return s;
  };
  std::string cuda_out = flags.cuda_ceilings_out;
  if ((!flags.ceilings_out.empty() || !cuda_out.empty()) && !recorder.HasCpu() && !recorder.HasCuda()) {
    const std::string skip = CudaSkipReason();
    return absl::FailedPreconditionError(absl::StrCat(
        "nothing to write: neither the CPU cases (fma, stream_copy) nor the CUDA cases "
        "(copy_d2d, gemm) ran",
        skip.empty() ? "" : absl::StrCat(" (the CUDA cases: ", skip, ")"), "; check --benchmark_filter"));
  }
  if (!flags.ceilings_out.empty()) {
    if (recorder.HasCpu() || !recorder.HasCuda() || !cuda_out.empty()) {
      absl::Status s = write(flags.ceilings_out, recorder.CpuCeilings(), "CPU");
      if (!s.ok()) return s;
    } else {
      cuda_out = flags.ceilings_out;  // only CUDA cases ran: this file is the GPU's
    }
  }
  if (!cuda_out.empty()) return write(cuda_out, recorder.CudaCeilings(), "GPU");
  return absl::OkStatus();
}

}  // namespace micro
