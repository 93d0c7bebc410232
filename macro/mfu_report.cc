// MfuReportLines: gpt_step's closing lines (mfu_report.h).
#include "macro/mfu_report.h"

#include <utility>
#include <map>
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sysinfo/huge_pages.h"
#include "accounting/mfu.h"
#include "accounting/mfu_rating.h"
#include "model/gpt_config.h"

namespace macro {
namespace {

std::string Pct(double fraction) { return accounting::FormatPercent(fraction, 2); }

double GemmSecondsAtRates(const GptSession& s) {
  double seconds = 0;
  for (const StepGemmRate& r : s.gemm_rates()) seconds += r.seconds_per_step();
  return seconds;
}

double MeanOf(const std::vector<StepTimes>& steps, double StepTimes::*field) {
  double sum = 0;
  for (const StepTimes& t : steps) sum += t.*field;
  return steps.empty() ? 0 : sum / steps.size();
}

double MeanStepSeconds(const std::vector<StepTimes>& steps) {
  double sum = 0;
  for (const StepTimes& t : steps) sum += t.total();
  return steps.empty() ? 0 : sum / steps.size();
}

}  // namespace

absl::StatusOr<accounting::MfuBreakdown> StepMfuBreakdown(const GptSession& s,
                                                          const std::vector<StepTimes>& steps) {
  if (s.gemm_rates().empty()) {
    return absl::UnimplementedError("no per-shape GEMM rates on this device (CPU only for now)");
  }
  if (steps.empty()) return absl::FailedPreconditionError("no timed steps");
  const bool gemm_timed =
      std::all_of(steps.begin(), steps.end(), [](const StepTimes& t) { return t.gemm >= 0; });
  accounting::MfuBreakdownInput in;
  in.model_flops_per_step = s.flops().model_flops_per_step;
  in.peak_flops_per_s = s.peak().flops_per_s;
  in.step_seconds = MeanStepSeconds(steps);
  in.optimizer_and_data_seconds = MeanOf(steps, &StepTimes::optimizer) + MeanOf(steps, &StepTimes::data);
  in.gemm_seconds_in_step = gemm_timed ? MeanOf(steps, &StepTimes::gemm) : -1;
  for (const StepGemmRate& r : s.gemm_rates()) in.gemm_flops_per_step += r.flops_per_step();
  in.gemm_seconds_at_rates = GemmSecondsAtRates(s);
  return accounting::BreakDownMfu(in);
}

namespace {

// The op that runs a step GEMM: "qkv.fwd" -> "matmul_forward/qkv", "qkv.bwd_input" and
// "qkv.bwd_weight" -> "matmul_backward/qkv" (model/cpu_gpt.cc's op names).
std::string GemmOpName(const std::string& gemm) {
  const size_t dot = gemm.find('.');
  const std::string layer = gemm.substr(0, dot);
  const bool forward = dot != std::string::npos && gemm.compare(dot + 1, 3, "fwd") == 0;
  return absl::StrCat(forward ? "matmul_forward/" : "matmul_backward/", layer);
}

// Each GEMM op's mean time in the timed steps against its GEMMs at their isolated rates; empty
// when the steps were not op-timed.
std::vector<std::string> GemmOpLines(const GptSession& s, const std::vector<StepTimes>& steps) {
  if (steps.empty()) return {};
  std::vector<std::pair<std::string, double>> in_step;  // op, mean seconds
  for (const StepTimes& t : steps) {
    if (t.gemm < 0) return {};
    for (const auto& [op, sec] : t.gemm_ops) {
      auto it = std::find_if(in_step.begin(), in_step.end(), [&](const auto& e) { return e.first == op; });
      if (it == in_step.end()) {
        in_step.emplace_back(op, sec / steps.size());
      } else {
        it->second += sec / steps.size();
      }
    }
  }
  std::map<std::string, double> alone;
  for (const StepGemmRate& r : s.gemm_rates()) alone[GemmOpName(r.gemm.name)] += r.seconds_per_step();
  std::vector<std::string> out;
  out.push_back("GEMM ops      in the step (the op timer's mean over the timed steps) vs their GEMMs at the rates above:");
  const auto row = [](const std::string& op, double step, double alone_s) {
    return absl::StrFormat("  %-24s %8.1f ms in the step %8.1f ms alone  %+6.1f%%", op, 1e3 * step, 1e3 * alone_s,
                           alone_s > 0 ? 100 * (step / alone_s - 1) : 0.0);
  };
  double step_sum = 0, alone_sum = 0;
  for (const auto& [op, sec] : in_step) {
    auto it = alone.find(op);
    const double a = it == alone.end() ? 0 : it->second;
    step_sum += sec;
    alone_sum += a;
    out.push_back(row(op, sec, a));
  }
  out.push_back(row("all", step_sum, alone_sum));
  return out;
}

}  // namespace

// 28 bytes a parameter; 30 in the CPU's bf16 step (the weight's bf16 copy written too).
double AdamWBytesPerParam(const GptSession& s) {
  return s.options().device == "cpu" && s.options().dtype == accounting::Dtype::kBf16
             ? accounting::kAdamWBytesPerBf16CopyParam
             : accounting::kAdamWBytesPerFp32Param;
}

absl::StatusOr<accounting::StepFloor> StepFloorOf(const GptSession& s, const std::vector<StepTimes>& steps) {
  if (s.gemm_rates().empty() || !(s.triad_bytes_per_s() > 0)) {
    return absl::UnimplementedError("no per-shape GEMM rates and STREAM triad on this device (CPU only for now)");
  }
  if (steps.empty()) return absl::FailedPreconditionError("no timed steps");
  accounting::StepFloorInput in;
  in.gemm_seconds_at_rates = GemmSecondsAtRates(s);
  in.params = s.num_params();
  in.adamw_bytes_per_param = AdamWBytesPerParam(s);
  in.in_place_bytes_per_s = s.in_place_bytes_per_s();
  in.step_seconds = MeanStepSeconds(steps);
  return accounting::ComputeStepFloor(in);
}

absl::StatusOr<accounting::StepPrediction> StepPredictionOf(const GptSession& s) {
  if (s.gemm_rates().empty() || !(s.triad_bytes_per_s() > 0) || !(s.adamw_probe().bytes_per_s > 0)) {
    return absl::UnimplementedError("no per-shape GEMM rates, STREAM triad and AdamW probe on this device (CPU only)");
  }
  const StepOptions& o = s.options();
  auto traffic = accounting::MemoryOpsTraffic(model::ToGptShape(o.config), o.batch, o.seq, o.recompute);
  if (!traffic.ok()) return traffic.status();
  accounting::StepPredictionInput in;
  in.gemm_seconds_at_rates = GemmSecondsAtRates(s);
  for (const StepGemmRate& r : s.gemm_rates()) in.gemm_flops += r.flops_per_step();
  in.traffic = *traffic;
  in.triad_bytes_per_s = s.triad_bytes_per_s();
  in.adamw_bytes = static_cast<double>(s.num_params()) * AdamWBytesPerParam(s);
  in.adamw_bytes_per_s = s.adamw_probe().bytes_per_s;
  return accounting::PredictStep(in);
}

double AttentionFlopsPerStep(const GptSession& s) {
  const StepOptions& o = s.options();
  return accounting::AttentionTrainFlopsPerToken(model::ToGptShape(o.config), o.seq, o.convention) *
         static_cast<double>(s.flops().tokens);
}

absl::StatusOr<double> AdamWBytesPerSecondOf(const GptSession& s, const std::vector<StepTimes>& steps) {
  if (steps.empty()) return absl::FailedPreconditionError("no timed steps");
  return accounting::AdamWBytesPerSecond(s.num_params(), MeanOf(steps, &StepTimes::optimizer), AdamWBytesPerParam(s));
}

namespace {

// The GEMM libraries and the rates at the step's shapes (CPU), with auto's candidates.
std::vector<std::string> GemmRateLines(const GptSession& s) {
  std::vector<std::string> out;
  const double peak = s.peak().flops_per_s;
  if (!s.gemm_rates().empty()) {
    out.push_back(absl::StrCat("GEMM          ", s.GemmDescription(),
                               s.options().dtype == accounting::Dtype::kBf16
                                   ? ""
                                   : absl::StrCat(" (--cpu_gemm=", s.gemm_info().backend, ")")));
    out.push_back(absl::StrCat("GEMM rates    at this step's ", s.gemm_rates().size(), " GEMM shapes, ",
                               s.gemm_rates_source(), ":"));
    double flops = 0, seconds = 0;
    bool compared = false;
    for (const StepGemmRate& r : s.gemm_rates()) {
      const model::StepGemm& g = r.gemm;
      std::string line = absl::StrFormat(
          "  %-19s %s%s M=%-5d N=%-5d K=%-5d x%-3d %-12s %7.1f GFLOP/s %6.1f%% of peak", g.name,
          g.trans_a ? "T" : "N", g.trans_b ? "T" : "N", g.M, g.N, g.K, g.calls,
          g.bf16 ? "onednn bf16" : model::CpuGemmBackendName(r.backend),
          r.flops_per_s / 1e9, 100 * r.flops_per_s / peak);
      if (r.candidates.size() > 1) {
        compared = true;
        absl::StrAppend(&line, "  (medians:");
        for (const model::GemmCandidateRate& c : r.candidates) {
          absl::StrAppend(&line, absl::StrFormat(" %s %.1f%s", model::CpuGemmBackendName(c.backend),
                                                 c.median_flops_per_s / 1e9, c.backend == r.backend ? "*" : ""));
        }
        absl::StrAppend(&line, ")");
      }
      out.push_back(std::move(line));
      flops += r.flops_per_step();
      seconds += r.seconds_per_step();
    }
    out.push_back(
        absl::StrFormat("  all: %.4g FLOPs/step in %.1f ms at these rates = %.1f GFLOP/s, %.1f%% of peak",
                        flops, seconds * 1e3, flops / seconds / 1e9, 100 * flops / seconds / peak));
    if (compared) {
      out.push_back(absl::StrCat(
          "  --cpu_gemm=auto ran each shape on the fastest median (*) of: ",
          model::CpuGemmBackendName(model::CpuGemmBackend::kOneDnn), " (",
          model::CpuGemmBackendForm(model::CpuGemmBackend::kOneDnn), "), ",
          model::CpuGemmBackendName(model::CpuGemmBackend::kOneDnnSgemm), " (",
          model::CpuGemmBackendForm(model::CpuGemmBackend::kOneDnnSgemm), "), ",
          model::CpuGemmBackendName(model::CpuGemmBackend::kOpenBlas), " (",
          model::CpuGemmBackendForm(model::CpuGemmBackend::kOpenBlas),
          "); oneDNN's primitive on Cᵀ has only its reference kernel and OpenBLAS has no row-major C = A·B, "
          "so neither is a candidate"));
    }
  }
  return out;
}

// Where the MFU went, in parts that add up to 100% (CPU).
std::vector<std::string> BreakdownLines(const GptSession& s, const std::vector<StepTimes>& steps) {
  std::vector<std::string> out;
  auto b = StepMfuBreakdown(s, steps);
  if (b.ok()) {
    out.push_back("where the MFU went (shares of the mean step time; they add up to 100%)");
    out.push_back(absl::StrCat("  achieved MFU                         ", Pct(b->mfu)));
    out.push_back(absl::StrCat("  lost to GEMM efficiency              ", Pct(b->gemm_efficiency),
                               "  (the step's GEMMs at the rates above vs at the peak)"));
    if (b->in_step_measured) {
      out.push_back(absl::StrCat("  lost to GEMMs slower in the step     ", Pct(b->gemm_in_step),
                                 "  (the GEMM ops' time in the step, with their bias sums, vs the"));
      out.push_back("                                               rates above; negative: faster in the step)");
      out.push_back(absl::StrCat("  lost in non-matmul ops               ", Pct(b->non_matmul),
                                 "  (the rest of forward + backward: LayerNorm, attention, GeLU,"));
      out.push_back("                                               cross-entropy, residuals, the embeddings)");
    } else {
      out.push_back(absl::StrCat("  lost in non-matmul ops               ", Pct(b->non_matmul),
                                 "  (the rest of forward + backward: LayerNorm, attention, GeLU,"));
      out.push_back(
          "                                               cross-entropy, residuals, bias gradients;"
          " GEMMs slower in the step than alone)");
    }
    out.push_back(absl::StrCat("  lost in optimizer and data           ", Pct(b->optimizer_and_data)));
    out.push_back(absl::StrCat("  total                                ", Pct(b->sum())));
  } else {
    out.push_back(absl::StrCat("where the MFU went: not broken down: ", b.status().message()));
  }
  return out;
}

}  // namespace

std::vector<std::string> MfuReportLines(const GptSession& s, const std::vector<StepTimes>& steps,
                                        double mfu) {
  std::vector<std::string> out;
  for (std::string& line : GemmRateLines(s)) out.push_back(std::move(line));
  for (std::string& line : GemmOpLines(s, steps)) out.push_back(std::move(line));
  if (s.triad_bytes_per_s() > 0) {
    const double triad = s.triad_bytes_per_s();
    const double roof = s.in_place_bytes_per_s();
    if (auto adamw = AdamWBytesPerSecondOf(s, steps); adamw.ok() && roof > 0) {
      out.push_back(absl::StrFormat(
          "AdamW         %.1f ms per step, %.1f GB/s (%.0f bytes per parameter: p, g, m, v read; p, m, v "
          "written in place%s) = %.0f%% of its roof, the in-place memory roof %.1f GB/s (%s)",
          1e3 * MeanOf(steps, &StepTimes::optimizer), *adamw / 1e9, AdamWBytesPerParam(s),
          AdamWBytesPerParam(s) > accounting::kAdamWBytesPerFp32Param ? "; the bf16 copy of p written" : "",
          100 * *adamw / roof, roof / 1e9, s.triad_source()));
    }
    if (auto f = StepFloorOf(s, steps); f.ok()) {
      out.push_back(absl::StrFormat(
          "floor         %.1f ms per step = GEMMs at their rates above %.1f ms + AdamW's %.3g GB at the in-place "
          "roof's %.1f GB/s %.1f ms; the step takes %.2fx its floor",
          1e3 * f->seconds, 1e3 * f->gemm_seconds, f->adamw_bytes / 1e9, roof / 1e9, 1e3 * f->adamw_seconds,
          f->step_multiple));
    }
    if (auto p = StepPredictionOf(s); p.ok() && !steps.empty()) {
      const double step = MeanStepSeconds(steps);
      out.push_back(absl::StrFormat(
          "predicted     %.1f ms per step = GEMMs at their rates %.1f + attention's products at their mean rate "
          "%.1f + the memory-bound ops' and the Linear weights' %.3g GB at the triad %.1f + AdamW at its own %.1f GB/s (alone, start-up) "
          "%.1f; the step took %.2fx the prediction",
          1e3 * p->seconds, 1e3 * p->gemm_seconds, 1e3 * p->attention_seconds,
          p->memory_ops_seconds * triad / 1e9, 1e3 * p->memory_ops_seconds, s.adamw_probe().bytes_per_s / 1e9,
          1e3 * p->adamw_seconds, step / p->seconds));
    }
    out.push_back("memory        " + sysinfo::DescribeHugePages());
  }
  for (std::string& line : BreakdownLines(s, steps)) out.push_back(std::move(line));
  // The bands are of LLM training on GPUs; a CPU's figure is read against its floor instead.
  std::string floor;
  if (auto f = StepFloorOf(s, steps); f.ok()) {
    floor = absl::StrFormat("read it against the floor above: the step takes %.2fx its floor", f->step_multiple);
  }
  out.push_back(absl::StrCat("MFU rating    ", accounting::MfuRatingText(mfu, s.options().device == "cuda", floor)));
  return out;
}

}  // namespace macro
