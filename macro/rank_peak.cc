// PeakForRank (pure) and the choice of the figure (ChooseSourcePeak): see rank_peak.h.
#include "macro/rank_peak.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/ceilings.h"
#include "accounting/cpu_peak.h"
#include "harness/peak_record.h"
#include "macro/peak_record_check.h"
#include "measure/cpu_ceilings.h"
#include "measure/stream.h"
#include "model/threads.h"
#include "sysinfo/cpu_info.h"

namespace macro {
namespace {

std::string Threads(int n) { return absl::StrCat(n, n == 1 ? " thread" : " threads"); }

// A device without a known peak (`why`: the registry's answer): an error naming it, or with
// UnknownPeak::kAllow the "n/a" figure.
absl::StatusOr<SourcePeak> NoPeak(const std::string& device_name, accounting::Dtype dtype, absl::string_view why,
                                  UnknownPeak unknown) {
  const std::string hint = "give --peak_flops=FLOPS or --ceilings=FILE";
  if (unknown == UnknownPeak::kRefuse) {
    return absl::InvalidArgumentError(absl::StrCat("no datasheet peak for '", device_name, "' in ",
                                                   accounting::DtypeName(dtype), ": ", why, " (", hint, ")"));
  }
  SourcePeak out;
  out.origin = PeakOrigin::kNone;
  out.peak.flops_per_s = 0;
  out.peak.source = absl::StrCat("n/a: no peak for '", device_name, "' in ", accounting::DtypeName(dtype), " (",
                                 why, "; ", hint, ")");
  return out;
}

// "best of 2 FMA probes: before ..., after ..., best taken (...)[; this machine's record: ...]; the
// start-up probe: <its source>".
std::string ProbedSource(const RankPeak& run_peak, const accounting::PeakProbes& probes) {
  return absl::StrCat("best of 2 ", run_peak.dtype == accounting::Dtype::kBf16 ? "bf16 " : "FMA ",
                      accounting::DescribeProbes(probes), "; the start-up probe: ", run_peak.peak.source);
}

}  // namespace

const char* PeakOriginName(PeakOrigin origin) {
  switch (origin) {
    case PeakOrigin::kMeasuredAtStartup: return "measured at start-up";
    case PeakOrigin::kCeilingsFile: return "--ceilings file";
    case PeakOrigin::kDatasheet: return "datasheet";
    case PeakOrigin::kFlag: return "--peak_flops";
    case PeakOrigin::kNone: return "no peak";
  }
  return "?";
}

absl::StatusOr<RankPeak> PeakForRank(const SourcePeak& chosen, const RunDevice& run) {
  const double f = chosen.peak.flops_per_s;
  if (chosen.origin == PeakOrigin::kNone) {
    if (run.device != "cpu" && run.device != "cuda") {
      return absl::InvalidArgumentError(absl::StrCat("device '", run.device, "' is not cpu or cuda"));
    }
    RankPeak out;  // nothing to scale: MFU is n/a
    out.peak = chosen.peak;
    out.peak.flops_per_s = 0;
    out.origin = PeakOrigin::kNone;
    out.rule_text = "no figure to scale";
    return out;
  }
  if (!std::isfinite(f) || f <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("peak ", f, " FLOP/s (", chosen.peak.source, ") is invalid: must be finite and > 0"));
  }
  RankPeak out;
  out.peak = chosen.peak;
  out.origin = chosen.origin;
  if (run.device == "cuda") {
    out.rule = PeakRule::kAsIs;
    out.rule_text = absl::StrCat("used as is: a GPU's ", PeakOriginName(chosen.origin),
                                 " figure is one device's, and each rank has its own device");
  } else if (run.device == "cpu") {
    if (run.threads < 1) {
      return absl::InvalidArgumentError(absl::StrCat("threads=", run.threads, " is invalid: must be >= 1"));
    }
    if (run.cores < 1)
      return absl::InvalidArgumentError(absl::StrCat("cores=", run.cores, " is invalid: must be >= 1"));
    if (chosen.measured_threads < 0) {
      return absl::InvalidArgumentError(absl::StrCat("measured_threads=", chosen.measured_threads,
                                                     " is invalid: must be >= 0 (0: not known)"));
    }
    const int used = std::min(run.threads, run.cores);  // a run cannot use more than every core
    if (chosen.measured_threads == run.threads) {
      out.rule = PeakRule::kAsIs;
      out.rule_text = absl::StrCat("used as is: ", PeakOriginName(chosen.origin), " with this run's own ",
                                   Threads(run.threads), ", so it is the peak of the cores this run uses");
    } else if (chosen.measured_threads > 0) {
      const int measured = std::min(chosen.measured_threads, run.cores);
      out.rule = used == measured ? PeakRule::kAsIs : PeakRule::kScaledFromMeasured;
      out.scale = static_cast<double>(used) / measured;
      out.rule_text =
          used == measured
              ? absl::StrCat("used as is: ", PeakOriginName(chosen.origin), " with ",
                             Threads(chosen.measured_threads), ", as many cores as this run's ",
                             Threads(run.threads), " (", run.cores, " cores)")
              : absl::StrCat("x ", used, "/", measured, ": ", PeakOriginName(chosen.origin), " with ",
                             Threads(chosen.measured_threads), ", scaled to this run's ",
                             Threads(run.threads), " (", run.cores, " cores)");
    } else if (used >= run.cores) {
      out.rule = PeakRule::kAsIs;
      out.rule_text = absl::StrCat("used as is: a whole-machine figure (", PeakOriginName(chosen.origin),
                                   "), and this run uses all ", run.cores, " cores");
    } else {
      out.rule = PeakRule::kScaledFromWholeMachine;
      out.scale = static_cast<double>(used) / run.cores;
      out.rule_text =
          absl::StrCat("x ", used, "/", run.cores, " cores: a whole-machine figure (",
                       PeakOriginName(chosen.origin), ") scaled to this run's share, ", Threads(run.threads));
    }
  } else {
    return absl::InvalidArgumentError(absl::StrCat("device '", run.device, "' is not cpu or cuda"));
  }
  out.peak.flops_per_s = f * out.scale;
  out.peak.source = absl::StrCat(chosen.peak.source, "; ", out.rule_text);
  return out;
}

absl::StatusOr<SourcePeak> ChooseSourcePeak(const StepOptions& o, const std::string& device_name,
                                            UnknownPeak unknown) {
  SourcePeak out;
  if (o.peak_flops > 0) {
    auto p = accounting::PeakFromFlags(o.peak_flops, 0, "peak_flops");
    if (!p.ok()) return p.status();
    out.peak = *p;
    out.origin = PeakOrigin::kFlag;
    return out;
  }
  if (const char* name = std::getenv(kNoPeakEnv); name != nullptr && *name != '\0' && o.ceilings.empty()) {
    return NoPeak(name, o.dtype, absl::StrCat("the test hook ", kNoPeakEnv), unknown);
  }
  if (o.device == "cpu") {
    // A measured peak in the run's dtype (the --ceilings file, else a sub-second measurement now):
    // the declared cores x lanes x units x clock over-states CPUs whose wide FMA is double-pumped.
    // No STREAM run: a train step divides by FLOP/s only (gpt_decode measures its bandwidth itself
    // when the peak carries none).
    auto measured = micro::ResolveCpuPeakWithThreads(o.ceilings, o.dtype, /*with_bandwidth=*/false);
    if (measured.ok()) {
      out.peak = measured->peak;
      out.origin = measured->from_file ? PeakOrigin::kCeilingsFile : PeakOrigin::kMeasuredAtStartup;
      out.measured_threads = measured->fma_threads;
      return out;
    }
    if (!o.ceilings.empty())
      return absl::InvalidArgumentError(absl::StrCat("--ceilings: ", measured.status().message()));
    if (o.dtype == accounting::Dtype::kBf16) {
      return absl::Status(measured.status().code(),
                          absl::StrCat("the CPU bf16 peak: ", measured.status().message()));
    }
    auto declared = accounting::CpuDeclaredPeakFromInfo(sysinfo::ReadCpuInfo(), o.dtype);
    if (!declared.ok()) return declared.status();
    declared->source += absl::StrCat(" (the start-up measurement failed: ", measured.status().message(), ")");
    out.peak = *declared;
    out.origin = PeakOrigin::kDatasheet;
    return out;
  }
  if (o.device != "cuda") return absl::InternalError(absl::StrCat("unknown device '", o.device, "'"));
  if (!o.ceilings.empty()) {
    auto c = accounting::ReadCeilings(o.ceilings);
    if (!c.ok()) return absl::InvalidArgumentError(absl::StrCat("--ceilings: ", c.status().message()));
    auto p = accounting::MeasuredPeak(*c, o.dtype, o.ceilings);
    if (!p.ok()) return absl::InvalidArgumentError(absl::StrCat("--ceilings: ", p.status().message()));
    out.peak = *p;
    out.origin = PeakOrigin::kCeilingsFile;
    return out;
  }
  auto p = accounting::DatasheetPeak(device_name, o.dtype);
  if (!p.ok()) return NoPeak(device_name, o.dtype, p.status().message(), unknown);
  out.peak = *p;
  out.origin = PeakOrigin::kDatasheet;
  return out;
}

absl::StatusOr<RankPeak> ChooseRunPeak(const StepOptions& o, const std::string& device_name, int threads,
                                       UnknownPeak unknown) {
  auto chosen = ChooseSourcePeak(o, device_name, unknown);
  if (!chosen.ok()) return chosen.status();
  RunDevice run;
  run.device = o.device;
  if (o.device == "cpu") {
    const sysinfo::CpuInfo cpu = sysinfo::ReadCpuInfo();
    run.cores = cpu.physical_cores > 0 ? cpu.physical_cores : std::max(1, cpu.logical_cpus);
    run.threads = threads > 0 ? threads : model::NumThreads();
  }
  if (chosen->origin == PeakOrigin::kMeasuredAtStartup) {
    // A malformed MLBENCH_PEAK_RECORD is refused before the run, not after its timed work (any
    // other trouble with the record is a warning then, peak_record_check.h).
    if (auto record = harness::PeakRecordPath(); absl::IsInvalidArgument(record.status())) return record.status();
  }
  auto peak = PeakForRank(*chosen, run);
  if (peak.ok()) peak->dtype = o.dtype;
  return peak;
}

ProbedPeak BestOfProbes(const RankPeak& run_peak, double after_flops_per_s) {
  ProbedPeak out;
  out.peak = run_peak.peak;
  out.probes.before = run_peak.peak.flops_per_s;
  out.probes.after = after_flops_per_s;
  out.peak.flops_per_s = accounting::BestProbe(out.probes);
  out.peak.source = ProbedSource(run_peak, out.probes);
  return out;
}

absl::StatusOr<ProbedPeak> ProbeAgain(const RankPeak& run_peak) {
  if (run_peak.origin != PeakOrigin::kMeasuredAtStartup) {
    ProbedPeak out;
    out.peak = run_peak.peak;
    return out;
  }
  double scale = 1;
  if (const char* env = std::getenv(kAfterProbeScaleEnv); env != nullptr && *env != '\0') {
    char* end = nullptr;
    scale = std::strtod(env, &end);
    if (end == env || *end != '\0' || !(scale > 0 && scale <= 10)) {
      return absl::InvalidArgumentError(
          absl::StrCat(kAfterProbeScaleEnv, "=", env, " is invalid: allowed 0 < X <= 10"));
    }
  }
  double after = 0;
  int threads = 0;
  if (run_peak.dtype == accounting::Dtype::kBf16) {
    auto bf16 = micro::MeasureCpuBf16PeakNow();
    if (!bf16.ok()) {
      return absl::Status(bf16.status().code(),
                          absl::StrCat("the bf16 probe after the timed steps: ", bf16.status().message()));
    }
    after = bf16->flops_per_s;
    threads = bf16->threads;
  } else {
    auto fma = micro::MeasureCpuFmaPeak();
    if (!fma.ok()) {
      return absl::Status(fma.status().code(),
                          absl::StrCat("the FMA probe after the timed steps: ", fma.status().message()));
    }
    after = fma->flops_per_s;
    threads = fma->threads;
  }
  ProbedPeak out = BestOfProbes(run_peak, after * run_peak.scale * scale);
  // This machine's record (peak_record_check.h), of the unscaled probe on the run's threads. The
  // test hook's scaled probe is no measurement: it is compared, never recorded.
  ConsultPeakRecord(StartupFigures(run_peak.dtype, out.peak.flops_per_s / run_peak.scale, threads,
                                   micro::LastMeasuredStream()),
                    /*may_raise=*/scale == 1, &out.probes);
  out.peak.source = ProbedSource(run_peak, out.probes);  // with the record, when there is one
  return out;
}

}  // namespace macro
