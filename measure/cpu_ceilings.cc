// MeasureCpuCeilings and ResolveCpuPeak (cpu_ceilings.h).
#include "measure/cpu_ceilings.h"

#include <algorithm>
#include <ctime>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/dtype.h"
#include "sysinfo/cpu_info.h"
#include "sysinfo/utc_now.h"

namespace micro {

namespace {

const FmaPeakResult* Faster(const std::optional<FmaPeakResult>& a, const std::optional<FmaPeakResult>& b) {
  if (a && (!b || a->flops_per_s >= b->flops_per_s)) return &*a;
  if (b) return &*b;
  return nullptr;
}

}  // namespace

std::string DescribeCpuMethod(const CpuCeilingsResult& r) {
  std::string fma;
  for (const auto* f : {&r.avx2, &r.avx512}) {
    if (!f->has_value()) continue;
    absl::StrAppend(&fma, fma.empty() ? "" : ", ", FmaIsaName((*f)->isa), " ",
                    absl::StrFormat("%.1f", (*f)->flops_per_s / 1e9), " GFLOP/s");
  }
  const FmaPeakResult* best = Faster(r.avx2, r.avx512);
  const bool in_cache =
      accounting::StreamFigureIsCacheResident(r.stream.elements * 4, sysinfo::ReadCpuInfo().l3_bytes);
  std::string method = absl::StrFormat(
      "FMA loop on %d threads (%s; peak = the faster); STREAM copy %.0f MiB x 2 arrays%s, "
      "best of %d (triad %.1f GB/s)",
      best ? best->threads : 0, fma, r.stream.elements * 4.0 / (1 << 20),
      in_cache ? " (CACHE-RESIDENT: under 4x the last-level cache, not a memory bandwidth)" : "",
      r.stream.trials, r.stream.triad_bytes_per_s / 1e9);
  if (!r.stream.roofs.empty()) {
    absl::StrAppend(&method, "; memory roofs per traffic kind, the five kernels interleaved in each trial on the "
                             "same 3 arrays, counted bytes (copy moves 1.5x and triad 4/3x that with "
                             "write-allocate): ",
                    r.stream.DescribeRoofs());
  }
  return method;
}

absl::StatusOr<accounting::Ceilings> PackCpuCeilings(const std::optional<FmaPeakResult>& avx2,
                                                     const std::optional<FmaPeakResult>& avx512,
                                                     const StreamResult& stream, const std::string& method) {
  const FmaPeakResult* best = Faster(avx2, avx512);
  if (best == nullptr) {
    return absl::FailedPreconditionError("no FMA measurement (neither AVX2 nor AVX-512 ran)");
  }
  if (!(stream.copy_bytes_per_s > 0)) {
    return absl::FailedPreconditionError("no STREAM copy measurement");
  }
  accounting::Ceilings c;
  c.machine = sysinfo::ReadCpuInfo().model;
  c.peak_flops[std::string(accounting::DtypeName(accounting::Dtype::kFp32))] = best->flops_per_s;
  c.bandwidth_bytes_per_s = stream.copy_bytes_per_s;
  c.stream_array_bytes = stream.elements * 4;
  c.triad_bytes_per_s = stream.triad_bytes_per_s;
  c.bandwidth_cache_resident =
      accounting::StreamFigureIsCacheResident(c.stream_array_bytes, sysinfo::ReadCpuInfo().l3_bytes);
  // The DRAM roofs only from DRAM-sized arrays: a cache-resident figure bounds nothing in DRAM.
  if (!c.bandwidth_cache_resident) {
    c.memory.dram_bytes_per_s = stream.roofs;
    c.memory.dram_spread = stream.spread;
  }
  c.method = method;
  c.date = sysinfo::UtcNow();
  return c;
}

absl::StatusOr<CpuCeilingsResult> MeasureCpuCeilings(const CpuCeilingOptions& options) {
  CpuCeilingsResult r;
  for (FmaIsa isa : {FmaIsa::kAvx2, FmaIsa::kAvx512}) {
    if (!FmaIsaSupported(isa)) continue;
    absl::StatusOr<FmaPeakResult> f = MeasureFmaPeak(isa, options.fma_seconds_per_trial, options.fma_trials);
    if (!f.ok()) return f.status();
    (isa == FmaIsa::kAvx2 ? r.avx2 : r.avx512) = *f;
  }
  int64_t bytes = options.stream_bytes_per_array;
  if (bytes <= 0) bytes = std::min(StreamArrayBytes(sysinfo::ReadCpuInfo().l3_bytes), kStartupStreamMaxBytes);
  absl::StatusOr<StreamResult> s = MeasureStream(bytes, options.stream_trials);
  if (!s.ok()) return s.status();
  r.stream = *s;
  absl::StatusOr<accounting::Ceilings> c = PackCpuCeilings(r.avx2, r.avx512, r.stream, DescribeCpuMethod(r));
  if (!c.ok()) return c.status();
  r.ceilings = *c;
  return r;
}

absl::StatusOr<FmaPeakResult> MeasureCpuFmaPeak(const CpuCeilingOptions& options) {
  std::optional<FmaPeakResult> avx2, avx512;
  for (FmaIsa isa : {FmaIsa::kAvx2, FmaIsa::kAvx512}) {
    if (!FmaIsaSupported(isa)) continue;
    absl::StatusOr<FmaPeakResult> f = MeasureFmaPeak(isa, options.fma_seconds_per_trial, options.fma_trials);
    if (!f.ok()) return f.status();
    (isa == FmaIsa::kAvx2 ? avx2 : avx512) = *f;
  }
  const FmaPeakResult* best = Faster(avx2, avx512);
  if (best == nullptr) return absl::FailedPreconditionError("no FMA measurement (neither AVX2 nor AVX-512 ran)");
  return *best;
}

int CpuMethodThreads(const std::string& method) {
  const std::string key = "FMA loop on ";
  const size_t at = method.find(key);
  if (at == std::string::npos) return 0;
  size_t i = at + key.size();
  int n = 0;
  size_t digits = 0;
  while (i < method.size() && method[i] >= '0' && method[i] <= '9' && digits < 6) {
    n = n * 10 + (method[i] - '0');
    ++i;
    ++digits;
  }
  if (digits == 0 || method.compare(i, 7, " thread") != 0) return 0;
  return n;
}

absl::StatusOr<Bf16PeakResult> MeasureCpuBf16PeakNow(const CpuCeilingOptions& options) {
  absl::StatusOr<CpuBf16Peak> b = MeasureCpuBf16Peak(options.fma_seconds_per_trial, options.fma_trials);
  if (!b.ok()) return b.status();
  return b->best;
}

absl::StatusOr<ResolvedCpuPeak> ResolveCpuPeakWithThreads(const std::string& ceilings_path,
                                                          accounting::Dtype dtype, bool with_bandwidth) {
  if (dtype != accounting::Dtype::kFp32 && dtype != accounting::Dtype::kBf16) {
    return absl::InvalidArgumentError(absl::StrCat("a CPU peak in ", accounting::DtypeName(dtype),
                                                   ": the CPU is measured in fp32 and bf16 only"));
  }
  const bool bf16 = dtype == accounting::Dtype::kBf16;
  ResolvedCpuPeak out;
  if (!ceilings_path.empty()) {
    absl::StatusOr<accounting::Ceilings> c = accounting::ReadCeilings(ceilings_path);
    if (!c.ok()) return c.status();
    const std::string cpu = sysinfo::ReadCpuInfo().model;
    if (c->machine != cpu) {
      return absl::FailedPreconditionError(
          absl::StrCat("ceilings file '", ceilings_path, "' describes '", c->machine, "', not this CPU '",
                       cpu, "'; measure this one with `bazel run //micro:ceilings -- --ceilings_out=FILE`"));
    }
    absl::StatusOr<accounting::Peak> p = accounting::MeasuredPeak(*c, dtype, ceilings_path);
    if (!p.ok()) {
      if (!bf16) return p.status();
      return absl::FailedPreconditionError(absl::StrCat(
          p.status().message(), "; measure the bf16 peak with `bazel run //micro:ceilings -- --ceilings_out=FILE` "
                                "(its BM_Ceiling/cpu/bf16 cases), or run without --ceilings"));
    }
    out.peak = *p;
    out.from_file = true;
    out.fma_threads = CpuMethodThreads(c->method);
    return out;
  }
  accounting::Peak& p = out.peak;
  if (!with_bandwidth && !bf16) {
    absl::StatusOr<FmaPeakResult> f = MeasureCpuFmaPeak();
    if (!f.ok()) return f.status();
    p.flops_per_s = f->flops_per_s;
    p.source = absl::StrFormat("measured at start-up: %s FMA loop x%d threads %.1f GFLOP/s", FmaIsaName(f->isa),
                               f->threads, p.flops_per_s / 1e9);
    out.fma_threads = f->threads;
    return out;
  }
  absl::StatusOr<CpuCeilingsResult> r;
  if (with_bandwidth) {
    r = MeasureCpuCeilings();
    if (!r.ok()) return r.status();
    p.bytes_per_s = r->ceilings.bandwidth_bytes_per_s;
    p.bandwidth_cache_resident = r->ceilings.bandwidth_cache_resident;
    p.memory = r->ceilings.memory;
  }
  const std::string stream =
      with_bandwidth ? absl::StrFormat(", STREAM copy %.1f GB/s", p.bytes_per_s / 1e9) : std::string();
  if (bf16) {
    CpuCeilingOptions options;
    absl::StatusOr<CpuBf16Peak> b = MeasureCpuBf16Peak(options.fma_seconds_per_trial, options.fma_trials);
    if (!b.ok()) return b.status();
    p.flops_per_s = b->best.flops_per_s;
    p.source = absl::StrFormat("measured at start-up: %s %s loop x%d threads %.1f GFLOP/s%s",
                               Bf16IsaName(b->best.isa), Bf16IsaInstruction(b->best.isa), b->best.threads,
                               p.flops_per_s / 1e9, stream);
    for (const std::string& note : b->notes) absl::StrAppend(&p.source, " (", note, ")");
    out.fma_threads = b->best.threads;
    return out;
  }
  p.flops_per_s = r->ceilings.peak_flops.at("fp32");
  const FmaPeakResult* best = Faster(r->avx2, r->avx512);
  p.source =
      absl::StrFormat("measured at start-up: %s FMA loop x%d threads %.1f GFLOP/s, STREAM copy %.1f GB/s",
                      FmaIsaName(best->isa), best->threads, p.flops_per_s / 1e9, p.bytes_per_s / 1e9);
  out.fma_threads = best->threads;
  return out;
}

absl::StatusOr<accounting::Peak> ResolveCpuPeak(const std::string& ceilings_path) {
  absl::StatusOr<ResolvedCpuPeak> r = ResolveCpuPeakWithThreads(ceilings_path);
  if (!r.ok()) return r.status();
  return r->peak;
}

}  // namespace micro
