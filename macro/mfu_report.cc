// MfuReportLines: gpt_step's closing lines (mfu_report.h).
#include "macro/mfu_report.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/mfu.h"
#include "accounting/mfu_rating.h"

namespace macro {
namespace {

std::string Pct(double fraction) { return accounting::FormatPercent(fraction, 2); }

}  // namespace

absl::StatusOr<accounting::MfuBreakdown> StepMfuBreakdown(const GptSession& s,
                                                          const std::vector<StepTimes>& steps) {
  if (s.gemm_rates().empty()) {
    return absl::UnimplementedError("no per-shape GEMM rates on this device (CPU only for now)");
  }
  if (steps.empty()) return absl::FailedPreconditionError("no timed steps");
  double total = 0, opt_data = 0;
  for (const StepTimes& t : steps) {
    total += t.total();
    opt_data += t.optimizer + t.data;
  }
  accounting::MfuBreakdownInput in;
  in.model_flops_per_step = s.flops().model_flops_per_step;
  in.peak_flops_per_s = s.peak().flops_per_s;
  in.step_seconds = total / steps.size();
  in.optimizer_and_data_seconds = opt_data / steps.size();
  for (const StepGemmRate& r : s.gemm_rates()) {
    const double f = r.gemm.calls * r.gemm.flops_per_call();
    in.gemm_flops_per_step += f;
    in.gemm_seconds_at_rates += f / r.flops_per_s;
  }
  return accounting::BreakDownMfu(in);
}

std::vector<std::string> MfuReportLines(const GptSession& s, const std::vector<StepTimes>& steps,
                                        double mfu) {
  std::vector<std::string> out;
  const double peak = s.peak().flops_per_s;
  if (!s.gemm_rates().empty()) {
    out.push_back(absl::StrCat("GEMM          ", s.gemm_info().ToString(),
                               " (--cpu_gemm=", s.gemm_info().backend, ")"));
    out.push_back(absl::StrCat("GEMM rates    at this step's ", s.gemm_rates().size(), " GEMM shapes, ",
                               s.gemm_rates_source(), ":"));
    double flops = 0, seconds = 0;
    for (const StepGemmRate& r : s.gemm_rates()) {
      const model::StepGemm& g = r.gemm;
      out.push_back(absl::StrFormat("  %-19s %s%s M=%-5d N=%-5d K=%-5d x%-3d %7.1f GFLOP/s %6.1f%% of peak",
                                    g.name, g.trans_a ? "T" : "N", g.trans_b ? "T" : "N", g.M, g.N, g.K,
                                    g.calls, r.flops_per_s / 1e9, 100 * r.flops_per_s / peak));
      flops += g.calls * g.flops_per_call();
      seconds += g.calls * g.flops_per_call() / r.flops_per_s;
    }
    out.push_back(
        absl::StrFormat("  all: %.4g FLOPs/step in %.1f ms at these rates = %.1f GFLOP/s, %.1f%% of peak",
                        flops, seconds * 1e3, flops / seconds / 1e9, 100 * flops / seconds / peak));
  }
  auto b = StepMfuBreakdown(s, steps);
  if (b.ok()) {
    out.push_back("where the MFU went (shares of the mean step time; they add up to 100%)");
    out.push_back(absl::StrCat("  achieved MFU                         ", Pct(b->mfu)));
    out.push_back(absl::StrCat("  lost to GEMM efficiency              ", Pct(b->gemm_efficiency),
                               "  (the step's GEMMs at the rates above vs at the peak)"));
    out.push_back(absl::StrCat("  lost in non-matmul ops               ", Pct(b->non_matmul),
                               "  (the rest of forward + backward: LayerNorm, attention, GeLU,"));
    out.push_back(
        "                                               cross-entropy, residuals, bias gradients;"
        " GEMMs slower in the step than alone)");
    out.push_back(absl::StrCat("  lost in optimizer and data           ", Pct(b->optimizer_and_data)));
    out.push_back(absl::StrCat("  total                                ", Pct(b->sum())));
  } else {
    out.push_back(absl::StrCat("where the MFU went: not broken down: ", b.status().message()));
  }
  const accounting::MfuBand& band = accounting::RateMfu(mfu);
  const std::string range = std::isinf(band.lower)   ? absl::StrCat("< ", Pct(band.upper))
                            : std::isinf(band.upper) ? absl::StrCat(">= ", Pct(band.lower))
                                                     : absl::StrCat(Pct(band.lower), " to ", Pct(band.upper));
  out.push_back(absl::StrCat("MFU rating    ", band.name, " (", range, "): ", band.advice));
  return out;
}

}  // namespace macro
