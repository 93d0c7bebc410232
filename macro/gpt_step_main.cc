// //macro:gpt_step — the GPT-2 train-step benchmark users run first.
//
// nanoGPT's bench.py, made exact: every knob is a flag, the device is synchronised only where one
// exists, tokens/s states its numerator and denominator, FLOPs per step name their attention
// convention, and MFU/HFU name the peak they divide by. The run is a Google Benchmark case, so
// --benchmark_filter, --benchmark_repetitions, --benchmark_format=json and --benchmark_out work.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "accounting/disturbed.h"
#include "accounting/mfu.h"
#include "accounting/throughput.h"
#include "benchmark/benchmark.h"
#include "comm/launch_check.h"
#include "harness/atomic_file.h"
#include "harness/benchmark_main.h"
#include "harness/exit_codes.h"
#include "harness/fail.h"
#include "harness/flags_main.h"
#include "macro/cpu_bf16_note.h"
#include "macro/gpt_session.h"
#include "macro/memory_ledger.h"
#include "macro/mfu_report.h"
#include "macro/step_flags.h"
#include "macro/step_options.h"
#include "macro/step_series.h"
#include "model/cuda/attention_choice.h"
#include "model/cuda/cuda_model.h"
#include "model/gemm_info.h"
#include "model/gpt_config.h"
#include "model/host_memory.h"
#include "sysinfo/cpu_info.h"
#include "sysinfo/cuda_info.h"

namespace macro {
namespace {

FILE* g_log = stdout;

void Log(const std::string& s) {
  std::fputs(s.c_str(), g_log);
  std::fputc('\n', g_log);
  std::fflush(g_log);
}

struct CaseResult {
  accounting::Recompute recompute = accounting::Recompute::kNone;  // the case's level (set at registration)
  bool ran = false;
  bool real_data = false;
  std::vector<StepTimes> steps;        // timed steps of the last repetition
  accounting::Disturbance disturbance;  // of the last repetition (accounting/disturbed.h)
  // The session's figures, kept for --recompute=all's table (each level's session is gone by then).
  double model_flops_per_step = 0, counted_flops_per_step = 0, hardware_flops_per_step = 0, peak_flops = 0;
  bool has_ledger = false;  // CPU
  MemoryLedger ledger;      // measured at the end of the case's timed steps
};

struct Run {
  StepOptions options;
  std::unique_ptr<GptSession> session;
  absl::Status create_status;
  bool warmed = false;
  accounting::RunningMfu running;
  std::vector<CaseResult> results;  // one per registered case
  StepSeriesLog series;             // every step's time, for the JSON file (step_series.h)
  bool context_added = false;       // the first session's attention choice is in the JSON context
};

Run* g_run = nullptr;

double StepMfu(const GptSession& s, double seconds) {
  auto m = accounting::Mfu(s.flops().model_flops_per_step, seconds, s.peak().flops_per_s);
  return m.ok() ? *m : 0;
}

void LogStep(const GptSession& s, const char* kind, int i, int n, const StepTimes& t,
             const accounting::RunningMfu& running) {
  double tok = s.options().tokens_per_step() / t.total();
  Log(absl::StrFormat("step %3d/%-3d %-7s | loss %.4f | %9.2f ms | %10.1f tokens/s | mfu %s", i, n, kind,
                      t.loss, t.total() * 1e3, tok, running.ToString()));
}

// The session of recompute level `recompute`: the one there is, or (--recompute=all, the next
// level) a new one after the last is freed, with warm-up steps of its own and the process's peak
// resident set measured from there (model/host_memory.h).
absl::Status EnsureSession(Run* run, accounting::Recompute recompute) {
  if (run->session && run->session->options().recompute == recompute) return absl::OkStatus();
  if (!run->create_status.ok()) return run->create_status;
  std::optional<GptSession::GemmRates> kept;
  if (run->session) {
    kept = run->session->gemm_rates_kept();
    if (!kept->rates.empty()) {
      kept->source = absl::StrCat(kept->source, "; kept from the first level, so that every level runs each GEMM on "
                                                "the same library");
    }
    run->session.reset();
    run->warmed = false;
    run->running = accounting::RunningMfu();
    model::ResetPeakResident();
  }
  StepOptions o = run->options;
  o.recompute = recompute;
  Log(absl::StrCat("gpt_step: building ", model::DescribeConfig(o.config), " on ", o.device, " (B=", o.batch,
                   ", T=", o.seq,
                   o.recompute_all || recompute != accounting::Recompute::kNone
                       ? absl::StrCat(", --recompute=", RecomputeFlagName(recompute, o.config))
                       : "",
                   ")"));
  auto s = GptSession::Create(o, kept && !kept->rates.empty() ? &*kept : nullptr);
  if (!s.ok()) {
    run->create_status = s.status();
    return s.status();
  }
  run->session = std::move(*s);
  // The CUDA model's attention, decided now (the cuDNN probe and its start-up check), printed and
  // recorded in the JSON context (before any case runs, so before the context is written).
  const std::string attention = model::CudaAttentionChoice(run->session->model());
  if (!attention.empty()) Log("gpt_step: " + attention);
  if (!run->context_added) {  // once: --recompute=all's later sessions choose the same
    benchmark::AddCustomContext("mlbench_attention_impl", model::cuda::AttentionImplRecord(attention));
    benchmark::AddCustomContext("mlbench_attention_choice",
                                attention.empty() ? "the CPU model's attention (no choice)" : attention);
    run->context_added = true;
  }
  Log(absl::StrCat("gpt_step: ", run->session->model().num_params(), " parameters; peak ",
                   absl::StrFormat("%.4g", run->session->peak().flops_per_s), " FLOP/s (",
                   run->session->peak().source, ")"));
  if (run->options.device == "cpu") {
    const std::string note =
        CpuBf16Note("gpt_step", run->options.dtype, run->session->peak().flops_per_s);
    if (!note.empty()) Log(note);
  }
  if (!run->session->gemm_rates().empty() && run->options.dtype != accounting::Dtype::kBf16) {
    Log(absl::StrCat("gpt_step: GEMM --cpu_gemm=", model::CpuGemmBackendName(run->options.cpu_gemm), ": ",
                     run->session->gemm_info().ToString()));
    std::map<std::string, int> shapes_on;
    for (const StepGemmRate& r : run->session->gemm_rates()) ++shapes_on[model::CpuGemmBackendName(r.backend)];
    std::string on;
    for (const auto& [name, n] : shapes_on) absl::StrAppend(&on, on.empty() ? "" : ", ", n, " on ", name);
    Log(absl::StrCat("gpt_step: the step's ", run->session->gemm_rates().size(), " GEMM shapes run ", on, " (",
                     run->session->gemm_rates_source(), "; the summary lists them)"));
  } else if (run->options.device == "cpu" && run->options.dtype == accounting::Dtype::kBf16) {
    Log(absl::StrCat("gpt_step: GEMM ", run->session->GemmDescription()));
  }
  return absl::OkStatus();
}

// Where the MFU went (CPU: mfu_report.h), as counters: fractions, and in percent under the names
// //tools:report draws as the MFU breakdown.
void SetBreakdownCounters(benchmark::State& state, const GptSession& s, const std::vector<StepTimes>& steps) {
  if (auto b = StepMfuBreakdown(s, steps); b.ok()) {
    state.counters["mfu_loss_gemm"] = b->gemm_efficiency;
    state.counters["mfu_loss_non_matmul"] = b->non_matmul;
    state.counters["mfu_loss_optimizer_data"] = b->optimizer_and_data;
    // The same in percent under the names //tools:report draws as the MFU breakdown (they
    // sort in this order: the achieved MFU first).
    state.counters["mfu_breakdown/achieved MFU"] = 100 * b->mfu;
    state.counters["mfu_breakdown/lost: GEMM efficiency"] = 100 * b->gemm_efficiency;
    if (b->in_step_measured) {
      state.counters["mfu_loss_gemm_in_step"] = b->gemm_in_step;
      state.counters["mfu_breakdown/lost: GEMMs slower in the step"] = 100 * b->gemm_in_step;
    }
    state.counters["mfu_breakdown/lost: non-matmul ops"] = 100 * b->non_matmul;
    state.counters["mfu_breakdown/lost: optimizer and data"] = 100 * b->optimizer_and_data;
  }
}

// The step's predicted time beside the measured one (CPU: mfu_report.h), and the sizes a sweep
// plots against: batch, seq, tokens per step, parameters, the attention term's FLOPs and share.
void SetPredictionCounters(benchmark::State& state, const GptSession& s, const std::vector<StepTimes>& steps) {
  const StepOptions& o = s.options();
  state.counters["batch"] = o.batch;
  state.counters["seq"] = o.seq;
  state.counters["tokens_per_step"] = static_cast<double>(s.flops().tokens);
  state.counters["params"] = static_cast<double>(s.num_params());
  const double attention = AttentionFlopsPerStep(s);
  state.counters["attention_flops_per_step"] = attention;
  if (s.flops().model_flops_per_step > 0) {
    state.counters["attention_flops_share"] = attention / s.flops().model_flops_per_step;
  }
  auto p = StepPredictionOf(s);
  if (!p.ok() || steps.empty()) return;
  double sum = 0;
  for (const StepTimes& t : steps) sum += t.total();
  state.counters["predicted_ms"] = 1e3 * p->seconds;
  state.counters["predicted_gemm_ms"] = 1e3 * p->gemm_seconds;
  state.counters["predicted_attention_ms"] = 1e3 * p->attention_seconds;
  state.counters["predicted_memory_ops_ms"] = 1e3 * p->memory_ops_seconds;
  state.counters["predicted_adamw_ms"] = 1e3 * p->adamw_seconds;
  state.counters["measured_over_predicted"] = sum / steps.size() / p->seconds;
  state.counters["adamw_probe_bytes_per_s"] = s.adamw_probe().bytes_per_s;
}

// The session's figures and (CPU) the memory ledger, measured now, at the end of the timed steps,
// into `result` and the case's counters: HFU over MFU counted and predicted, and each ledger line
// predicted (mem_*) beside measured (mem_*_measured).
void RecordCaseFigures(benchmark::State& state, const GptSession& s, CaseResult* result) {
  result->model_flops_per_step = s.flops().model_flops_per_step;
  result->counted_flops_per_step = s.counted_flops_per_step();
  result->hardware_flops_per_step = s.flops().hardware_flops_per_step;
  result->peak_flops = s.has_peak() ? s.peak().flops_per_s : 0;
  if (result->model_flops_per_step > 0) {
    state.counters["hfu_over_mfu"] = result->counted_flops_per_step / result->model_flops_per_step;
    state.counters["hfu_over_mfu_predicted"] = result->hardware_flops_per_step / result->model_flops_per_step;
  }
  if (s.options().device == "cpu") {
    result->ledger = MakeMemoryLedger(s.memory_plan(), s.options());
    result->ledger.activations_resident = s.model().ResidentActivationBytes();
    result->ledger.peak_resident = model::PeakResidentBytes();
  } else {
    const model::cuda::CudaMemoryPlan* plan = model::CudaModelMemoryPlan(s.model());
    if (plan == nullptr) return;
    result->ledger = MakeCudaMemoryLedger(*plan, s.options());
    const int64_t now = model::CudaDeviceMemoryInUse(), before = s.device_bytes_before_model();
    if (now >= 0 && before >= 0) result->ledger.peak_resident = now - before;
  }
  result->has_ledger = true;
  const model::MemoryEstimate& m = result->ledger.plan.model;
  state.counters["mem_params_bytes"] = m.params_bytes;
  state.counters["mem_grads_bytes"] = m.grads_bytes;
  state.counters["mem_adamw_bytes"] = m.adamw_bytes;
  state.counters["mem_bf16_bytes"] = m.bf16_bytes;
  state.counters["mem_activations_bytes"] = m.activations_bytes;
  state.counters["mem_workspace_bytes"] = result->ledger.plan.startup_bytes + result->ledger.plan.runtime_bytes;
  state.counters["mem_peak_bytes"] = result->ledger.predicted_peak();
  if (result->ledger.activations_resident >= 0) {
    state.counters["mem_activations_bytes_measured"] = result->ledger.activations_resident;
  }
  if (result->ledger.peak_resident >= 0) state.counters["mem_peak_bytes_measured"] = result->ledger.peak_resident;
}

// The case's counters and label over its timed steps (result->steps), after the peak's second
// probe; records the run's disturbance in `result`.
void SetCaseCounters(benchmark::State& state, const GptSession& s, const StepOptions& o, CaseResult* result) {
  std::vector<double> totals;
  for (const StepTimes& t : result->steps) totals.push_back(t.total());
  SeriesStats st = Summarise(totals);
  const double tokens = static_cast<double>(o.tokens_per_step()) * st.n;
  auto mfu = accounting::Mfu(s.flops().model_flops_per_step * st.n, st.sum, s.peak().flops_per_s);
  auto hfu = accounting::Hfu(s.counted_flops_per_step() * st.n, st.sum, s.peak().flops_per_s);
  state.counters["tokens_per_second"] = tokens / st.sum;
  state.counters["flops_per_second"] = s.flops().model_flops_per_step * st.n / st.sum;
  if (s.has_peak()) {  // else MFU and HFU are n/a: no counter, the label's peak says why
    state.counters["mfu"] = mfu.ok() ? *mfu : 0;
    state.counters["hfu"] = hfu.ok() ? *hfu : 0;
    state.counters["peak_flops"] = s.peak().flops_per_s;
  }
  state.counters["ms_per_step"] = st.median * 1e3;
  state.counters["loss"] = result->steps.back().loss;
  state.counters["flops_per_step"] = s.flops().model_flops_per_step;
  state.counters["verified"] = std::isfinite(result->steps.back().loss) ? 1 : 0;
  // MFU or HFU above 103%, peak probes 10% apart, or a figure 15% below this machine's record:
  // DISTURBED (the gate refuses the case).
  result->disturbance = accounting::JudgeDisturbance(
      {{"MFU", s.flops().model_flops_per_step * st.n / st.sum, s.peak().flops_per_s},
       {"HFU", s.counted_flops_per_step() * st.n / st.sum, s.peak().flops_per_s}},
      s.probes());
  state.counters["disturbed"] = result->disturbance.disturbed ? 1 : 0;
  if (auto w = accounting::WorstRecordCheck(s.probes())) state.counters["peak_record_ratio"] = w->figure / w->record;
  if (s.probes().both()) {
    state.counters["peak_probe_before"] = s.probes().before;
    state.counters["peak_probe_after"] = s.probes().after;
  }
  SetBreakdownCounters(state, s, result->steps);
  if (auto f = StepFloorOf(s, result->steps); f.ok()) {
    state.counters["floor_ms"] = 1e3 * f->seconds;
    state.counters["step_over_floor"] = f->step_multiple;
    state.counters["stream_triad_bytes_per_s"] = s.triad_bytes_per_s();
    state.counters["in_place_roof_bytes_per_s"] = s.in_place_bytes_per_s();
  }
  if (auto adamw = AdamWBytesPerSecondOf(s, result->steps); adamw.ok() && s.in_place_bytes_per_s() > 0) {
    state.counters["adamw_bytes_per_s"] = *adamw;
    state.counters["adamw_pct_of_roof"] = 100 * *adamw / s.in_place_bytes_per_s();
  }
  SetPredictionCounters(state, s, result->steps);
  RecordCaseFigures(state, s, result);
  const std::string gemm = s.gemm_rates().empty() ? "" : absl::StrCat("; GEMM: ", s.GemmDescription());
  state.SetLabel(accounting::DisturbedLabel(
      result->disturbance, absl::StrCat(o.config.name, " ", accounting::ConventionName(o.convention),
                                       " attention; peak: ", s.peak().source, gemm)));
}

void BM_GptStep(benchmark::State& state, int case_index, bool real_data) {
  Run* run = g_run;
  if (auto st = EnsureSession(run, run->results[case_index].recompute); !st.ok()) {
    state.SkipWithError(std::string(st.message()).c_str());
    for (auto _ : state) {
    }
    return;
  }
  GptSession& s = *run->session;
  const StepOptions& o = s.options();  // the run's, with this case's recompute level
  run->series.BeginRepetition(case_index);
  if (!run->warmed) {
    for (int i = 1; i <= o.warmup_steps; ++i) {
      auto t = s.Step(real_data);
      if (!t.ok()) {
        state.SkipWithError(std::string(t.status().message()).c_str());
        for (auto _ : state) {
        }
        return;
      }
      if (s.has_peak()) run->running.Update(StepMfu(s, t->total()));
      run->series.AddWarmup(t->total());
      LogStep(s, "warm-up", i, o.warmup_steps, *t, run->running);
    }
    run->warmed = true;
  }
  CaseResult& result = run->results[case_index];
  result.ran = true;
  result.real_data = real_data;
  result.steps.clear();
  int i = 0;
  for (auto _ : state) {
    auto t = s.Step(real_data);
    if (!t.ok()) {
      state.SkipWithError(std::string(t.status().message()).c_str());
      break;
    }
    state.SetIterationTime(t->total());
    run->series.AddTimed(t->total());
    if (s.has_peak()) run->running.Update(StepMfu(s, t->total()));
    LogStep(s, real_data ? "real" : "timed", ++i, o.steps, *t, run->running);
    result.steps.push_back(*t);
  }
  if (result.steps.empty()) return;
  // The peak's second probe, after the timed steps and outside their time: the run divides by
  // the best of the two, and two probes that differ by more than 10% make it DISTURBED.
  if (auto probed = s.ProbePeakAgain(); !probed.ok()) {
    state.SkipWithError(std::string(probed.message()).c_str());
    result.steps.clear();
    return;
  }

  SetCaseCounters(state, s, o, &result);
}

// What a step's time spans, as the step clock marks it (gpt_session.cc, Step).
std::string TimedSpan(const StepOptions& o) {
  return o.cuda_graph ? "data, then forward + backward + optimizer as one CUDA graph replay"
                      : "data, forward, backward, optimizer";
}

void PrintSummary(const Run& run, const CaseResult& r) {
  const GptSession& s = *run.session;
  const StepOptions& o = run.options;
  std::vector<double> totals, data, fwd, bwd, opt, graph;
  for (const StepTimes& t : r.steps) {
    totals.push_back(t.total());
    data.push_back(t.data);
    fwd.push_back(t.forward);
    bwd.push_back(t.backward);
    opt.push_back(t.optimizer);
    graph.push_back(t.graph);
  }
  SeriesStats st = Summarise(totals);
  const bool level_named = o.recompute_all || r.recompute != accounting::Recompute::kNone;  // as registered
  Log(absl::StrCat("\n== summary: BM_GptStep/", o.CaseName(), r.real_data ? "/data:real" : "",
                   level_named ? absl::StrCat("/recompute:", RecomputeFlagName(r.recompute, o.config)) : "", ", ", st.n,
                   " timed steps after ", o.warmup_steps, " warm-up",
                   r.disturbance.disturbed ? absl::StrCat(" | DISTURBED: ", r.disturbance.reason) : ""));
  Log(absl::StrFormat("step time     median %.2f ms (min %.2f, max %.2f; spread (max-min)/median %.1f%%)",
                      st.median * 1e3, st.min * 1e3, st.max * 1e3,
                      st.median > 0 ? 100 * (st.max - st.min) / st.median : 0));
  accounting::TokenCount num;
  num.tokens = static_cast<double>(o.tokens_per_step()) * st.n;
  num.ranks = accounting::RankScope::kOneRank;
  accounting::TimedPhases den;
  den.data = true;
  den.optimizer = true;
  // The loss is read back after the step's last clock mark (bench.py's loss.item()): not timed.
  den.logging = false;
  auto tp = accounting::TrainingThroughput::Make(num, st.sum, den);
  if (tp.ok()) {
    Log(absl::StrCat("tokens/s      ", tp->ToString()));
    Log(absl::StrCat("              = ", st.n, " steps x B=", o.batch, " x T=", o.seq, " tokens / ",
                     absl::StrFormat("%.3f", st.sum), " s (", TimedSpan(o),
                     "; the loss read-back after each step and the warm-up are not timed)"));
  }
  Log(absl::StrFormat("FLOPs/step    %.4g model (%s), %.4g counted from the matmuls issued",
                      s.flops().model_flops_per_step, s.flops().Describe(), s.counted_flops_per_step()));
  auto mfu = accounting::Mfu(s.flops().model_flops_per_step * st.n, st.sum, s.peak().flops_per_s);
  auto hfu = accounting::Hfu(s.counted_flops_per_step() * st.n, st.sum, s.peak().flops_per_s);
  if (s.has_peak()) {
    Log(absl::StrFormat("peak          %.4g FLOP/s: %s", s.peak().flops_per_s, s.peak().source));
    Log(absl::StrCat("MFU           ",
                     mfu.ok() ? accounting::FormatPercent(*mfu) : std::string(mfu.status().message()),
                     "  (model FLOPs / time / peak)"));
    Log(absl::StrCat("HFU           ",
                     hfu.ok() ? accounting::FormatPercent(*hfu) : std::string(hfu.status().message()),
                     "  (FLOPs of the matmuls actually issued / time / peak, --recompute=",
                     RecomputeFlagName(o.recompute, o.config), ")"));
    Log(absl::StrFormat("HFU/MFU       %.4f counted (the matmuls issued / model FLOPs) | %.4f predicted (the "
                        "formula's hardware / model FLOPs)",
                        r.counted_flops_per_step / r.model_flops_per_step,
                        r.hardware_flops_per_step / r.model_flops_per_step));
  } else {  // the steps are timed; nothing to divide by
    Log(absl::StrCat("peak          ", s.peak().source));
    Log(absl::StrCat("MFU           ", s.peak().source));
    Log(absl::StrCat("HFU           ", s.peak().source));
  }
  double sum = st.sum > 0 ? st.sum : 1;
  auto share = [&](const std::vector<double>& v) { return 100 * Summarise(v).sum / sum; };
  if (o.cuda_graph) {
    Log(absl::StrFormat("time split    data %.1f%% | forward + backward + optimizer %.1f%% (one CUDA graph)",
                        share(data), share(graph)));
  } else {
    Log(absl::StrFormat("time split    data %.1f%% | forward %.1f%% | backward %.1f%% | optimizer %.1f%%",
                        share(data), share(fwd), share(bwd), share(opt)));
  }
  Log(absl::StrCat("data          ", s.DescribeData(r.real_data)));
  if (mfu.ok() && s.has_peak()) {
    for (const std::string& line : MfuReportLines(s, r.steps, *mfu)) Log(line);
  }
  if (r.has_ledger) {
    for (const std::string& line : MemoryLedgerLines(r.ledger)) Log(line);
  }
}

// --recompute=all: a line per level against none's (the first case).
void PrintRecomputeTable(const Run& run) {
  const StepOptions& o = run.options;
  const CaseResult* none = nullptr;
  for (const CaseResult& r : run.results) {
    if (r.ran && !r.steps.empty() && r.recompute == accounting::Recompute::kNone) none = &r;
  }
  Log(absl::StrCat("\n== recompute trade: ", o.CaseName(), ", ", o.steps, " timed steps per level after ",
                   o.warmup_steps, " warm-up; CPU ", sysinfo::ReadCpuInfo().model,
                   "; each level's own start-up peak; x: against none"));
  Log(absl::StrFormat("%-10s %10s %6s %10s %11s %6s %10s %6s %10s %7s %7s %8s %9s", "level", "step ms", "x",
                      "tokens/s", "activations", "x", "VmHWM", "x", "predicted", "MFU", "HFU", "HFU/MFU",
                      "predicted"));
  auto x = [](double v, double base) { return base > 0 ? absl::StrFormat("%.2f", v / base) : std::string("-"); };
  for (const CaseResult& r : run.results) {
    if (!r.ran || r.steps.empty()) continue;
    std::vector<double> totals;
    for (const StepTimes& t : r.steps) totals.push_back(t.total());
    const SeriesStats st = Summarise(totals);
    const SeriesStats base = none ? Summarise([&] {
      std::vector<double> v;
      for (const StepTimes& t : none->steps) v.push_back(t.total());
      return v;
    }()) : SeriesStats();
    const double mfu = r.peak_flops > 0 ? r.model_flops_per_step / st.median / r.peak_flops : 0;
    const double hfu = r.peak_flops > 0 ? r.counted_flops_per_step / st.median / r.peak_flops : 0;
    const int64_t act = r.ledger.activations_resident, peak = r.ledger.peak_resident;
    Log(absl::StrFormat(
        "%-10s %10.2f %6s %10.1f %11s %6s %10s %6s %10s %7s %7s %8.4f %9.4f%s",
        RecomputeFlagName(r.recompute, o.config), st.median * 1e3, x(st.median, base.median),
        o.tokens_per_step() / st.median, model::FormatBytes(act), none ? x(act, none->ledger.activations_resident) : "-",
        model::FormatBytes(peak), none ? x(peak, none->ledger.peak_resident) : "-",
        model::FormatBytes(r.ledger.predicted_peak()), r.peak_flops > 0 ? accounting::FormatPercent(mfu) : "n/a",
        r.peak_flops > 0 ? accounting::FormatPercent(hfu) : "n/a", r.counted_flops_per_step / r.model_flops_per_step,
        r.hardware_flops_per_step / r.model_flops_per_step,
        r.disturbance.disturbed ? absl::StrCat("  DISTURBED: ", r.disturbance.reason) : ""));
  }
  Log("activations: the activation buffer's resident bytes (mincore); VmHWM: the process's peak resident set from "
      "the level's start (the model, its start-up measurements and the libraries); predicted: the plan's peak");
}

void PrintCompareData(const Run& run) {
  const CaseResult* random = nullptr;
  const CaseResult* real = nullptr;
  for (const CaseResult& r : run.results) {
    if (!r.ran || r.steps.empty()) continue;
    (r.real_data ? real : random) = &r;
  }
  if (random == nullptr || real == nullptr) {
    Log("compare_data: both the random and the real-data case must run (check --benchmark_filter)");
    return;
  }
  auto median_of = [](const CaseResult& r, double StepTimes::*phase) {
    std::vector<double> v;
    for (const StepTimes& t : r.steps) v.push_back(phase ? t.*phase : t.total());
    return Summarise(v).median;
  };
  double step_rand = median_of(*random, nullptr), step_real = median_of(*real, nullptr);
  double data_rand = median_of(*random, &StepTimes::data), data_real = median_of(*real, &StepTimes::data);
  Log("\n== compare_data (the seed's first diagnostic: swap the data loader for fixed tensors)");
  Log(absl::StrFormat(
      "step median   random %.2f ms | real %.2f ms | difference %+.2f ms (%+.1f%% of the real step)",
      step_rand * 1e3, step_real * 1e3, (step_real - step_rand) * 1e3,
      step_real > 0 ? 100 * (step_real - step_rand) / step_real : 0));
  Log(absl::StrFormat("data phase    random %.3f ms | real %.3f ms: the data path is %.2f%% of the real step",
                      data_rand * 1e3, data_real * 1e3, step_real > 0 ? 100 * data_real / step_real : 0));
  Log("              (a difference is not all disk: caches, copies and synchronisation can take part)");
}

absl::Status RunProfile(Run* run) {
  if (auto st = EnsureSession(run, run->options.recompute); !st.ok()) return st;
  const StepOptions& o = run->options;
  Log(absl::StrCat("\n== profile: wait ", kProfileWait, ", warm up ", kProfileWarmup, ", record ",
                   kProfileActive, " steps (", o.device == "cuda" ? "CUDA events" : "host timers", ")"));
  OpTrace trace;
  if (auto st = run->session->Profile(o.real_data, &trace); !st.ok()) return st;
  if (auto st = trace.WriteChromeTrace(o.profile_out, absl::StrCat("gpt_step ", o.CaseName())); !st.ok()) {
    return st;
  }
  Log(absl::StrCat("trace written: ", o.profile_out,
                   " (open in https://ui.perfetto.dev or chrome://tracing)"));
  Log("top ops by self time over the recorded steps:");
  Log(absl::StrFormat("  %-28s %7s %12s %7s", "op", "calls", "self ms", "share"));
  for (const OpSummary& op : trace.TopBySelfTime("op", 16)) {
    std::string name = op.name == GptSession::kStepSpan ? "(step, outside any op)" : op.name;
    Log(absl::StrFormat("  %-28s %7d %12.2f %6.1f%%", name, op.calls, op.self_us / 1e3, 100 * op.share));
  }
  return absl::OkStatus();
}

constexpr char kUsage[] =
    "gpt_step: the GPT-2 train-step benchmark (nanoGPT's bench.py, made exact).\n"
    "\n"
    "  bazel run //macro:gpt_step                        defaults for this machine (said at start)\n"
    "  bazel run //macro:gpt_step -- --preset=gpt2 --batch=8 --seq=128 --steps=20\n"
    "  bazel run //macro:gpt_step -- --ceilings=/tmp/ceil.json   MFU against measured ceilings\n"
    "  bazel run //macro:gpt_step -- --benchmark_format=json --benchmark_out=/tmp/step.json\n"
    "\n"
    "Google Benchmark flags work too: --benchmark_filter, --benchmark_repetitions,\n"
    "--benchmark_format, --benchmark_out, --benchmark_out_format. Each timed step is one\n"
    "iteration; its time is the device-clock sum of data, forward, backward and optimizer.\n"
    "\n"
    "Peak: --peak_flops, else --ceilings, else on the CPU the FMA loop measured at start-up and\n"
    "again after the timed steps (about 0.1-0.3 s, outside the step times); the best probe is the\n"
    "peak, and the summary's peak line gives both. On CUDA without --peak_flops or --ceilings the\n"
    "GPU's datasheet: a GPU whose name has no entry (a MIG slice, a new card) is still timed, and\n"
    "its MFU and HFU are 'n/a: no peak for NAME' (no mfu, hfu or peak_flops counter in the JSON).\n"
    "Test hook: MLBENCH_TEST_NO_PEAK=NAME (environment) makes the run's device one named NAME\n"
    "without a known peak, on the CPU too.\n"
    "DISTURBED: a run whose MFU or HFU exceeds 103% (100% plus the 3% a measured peak itself varies\n"
    "by), whose two peak probes differ by more than 10%, or whose best probe or start-up STREAM triad\n"
    "is more than 15% below this machine's record (the best quiet figures of this machine key, in\n"
    "$XDG_CACHE_HOME/mlbench/peak_record.json or ~/.cache/mlbench/; a quiet run raises it and says so\n"
    "on stderr; MLBENCH_PEAK_RECORD=FILE (absolute) keeps it elsewhere, =off turns it off) says so in\n"
    "the summary's first line\n"
    "with the reason, and its JSON case has the counter disturbed=1 and a label starting\n"
    "'DISTURBED: <reason>': tools/gate and tools/bench refuse it (exit 2) like an unverified case.\n"
    "The binary itself still exits 0.\n"
    "\n"
    "On the CPU the summary also gives each GEMM op's time in the step against its GEMMs alone\n"
    "(the op timer runs during the timed steps: well under a millisecond a step), AdamW's bytes/s\n"
    "against its roof, the in-place memory roof (arrays updated where they were read: no\n"
    "write-allocate; a --ceilings file's memory_roofs_bytes_per_s.in_place, else measured at\n"
    "start-up with STREAM's triad on arrays of at most 256 MiB, best of 6, about 0.5 s), the step's\n"
    "floor (its GEMMs at their isolated rates + AdamW's bytes at the in-place roof) with the step\n"
    "time as a multiple of it (JSON: floor_ms, step_over_floor, adamw_bytes_per_s, adamw_pct_of_roof,\n"
    "in_place_roof_bytes_per_s, stream_triad_bytes_per_s), the step's\n"
    "prediction (the GEMMs at their rates, attention's products at their mean rate, the\n"
    "memory-bound ops' bytes and the Linear weights' trips to memory at the triad, AdamW at its own\n"
    "bytes/s measured alone at start-up on 4 arrays of 3/4 of STREAM's; JSON: predicted_ms and its\n"
    "terms predicted_gemm_ms, predicted_attention_ms, predicted_memory_ops_ms, predicted_adamw_ms,\n"
    "measured_over_predicted, adamw_probe_bytes_per_s; //tools:sweep holds it against the step\n"
    "over a grid), where\n"
    "the MFU went in five parts that add up to 100%, and how much of the process sits on 2 MiB\n"
    "transparent huge pages (the model's buffers of 4 MiB and more and STREAM's arrays are advised\n"
    "to; MLBENCH_NO_HUGE_PAGES=1 turns that off, for a side-by-side comparison).\n"
    "Test hook: MLBENCH_TEST_AFTER_PROBE_SCALE=X (environment) multiplies the after-run probe by X,\n"
    "a slow moment on demand (macro/disturbed_test.sh); such a run never raises the record.\n"
    "--dtype=bf16 on the CPU: bf16 GEMM operands with fp32 accumulation on oneDNN (AMX or\n"
    "AVX512-BF16), fp32 master weights, AdamW and the other ops; MFU against the measured CPU bf16\n"
    "peak (AMX's TDPBF16PS loop where Linux grants AMX, else AVX512-BF16's VDPBF16PS; a --ceilings\n"
    "file's peak_flops.bf16). Test hook: MLBENCH_TEST_REFUSE_AMX=1 simulates the kernel refusing AMX.\n"
    "\n"
    "Exit status: 0 success; 1 command line not understood (unknown flag, unparsable value);\n"
    "2 bad input or broken measurement (value out of range, bad token file, a failed or\n"
    "non-finite step, a filter that selects nothing, an output that could not be written).\n"
    "--benchmark_out (json, console or csv) is written once the run ends, through a temporary\n"
    "file and a rename (a device or /dev/stdout in place): Ctrl-C or a full disk leaves a previous\n"
    "file as it was; a failed write is exit 2.\n"
    "\n"
    "Relative paths (--data, --ceilings, --profile_out, --benchmark_out) are relative to the\n"
    "folder bazel run was started from; the start-up lines print the absolute path used.";

// One Google Benchmark case per data mode (two with --compare_data), and the run's context.
void RegisterCases(Run* run) {
  const StepOptions& o = run->options;
  std::vector<bool> modes;
  if (o.compare_data)
    modes = {false, true};
  else
    modes = {o.real_data};
  // --recompute=all: a case per level, in the data mode asked for (not with --compare_data).
  std::vector<accounting::Recompute> levels = {o.recompute};
  if (o.recompute_all) levels = RecomputeLevels(o.config);
  for (accounting::Recompute level : levels) {
    for (bool real : modes) {
      const int i = static_cast<int>(run->results.size());
      std::string name = absl::StrCat("BM_GptStep/", o.CaseName());
      if (o.compare_data) name += real ? "/data:real" : "/data:random";
      if (o.recompute_all || level != accounting::Recompute::kNone) {
        name += absl::StrCat("/recompute:", RecomputeFlagName(level, o.config));
      }
      run->results.emplace_back();
      run->results.back().recompute = level;
      run->series.SetCaseName(i, name);
      benchmark::RegisterBenchmark(name.c_str(), [i, real](benchmark::State& st) { BM_GptStep(st, i, real); })
          ->Iterations(o.steps)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  harness::AddRunContext();
  sysinfo::CpuInfo cpu = sysinfo::ReadCpuInfo();
  benchmark::AddCustomContext("mlbench_cpu", cpu.model);
#ifdef NDEBUG
  benchmark::AddCustomContext("mlbench_build_type", "opt (NDEBUG)");
#else
  benchmark::AddCustomContext("mlbench_build_type", "debug (asserts on)");
#endif
  benchmark::AddCustomContext("mlbench_device", o.device);
  if (o.device == "cpu") benchmark::AddCustomContext("mlbench_gemm", model::CpuGemmInfo(o.cpu_gemm).ToJson());
  // bf16 on the CPU: mlbench_gemm is --cpu_gemm's library, which runs the attention's fp32 GEMMs;
  // the Linears run bf16 on oneDNN whatever it is.
  if (o.device == "cpu" && o.dtype == accounting::Dtype::kBf16) {
    benchmark::AddCustomContext("mlbench_gemm_linears", Bf16LinearsGemm());
  }
  benchmark::AddCustomContext("mlbench_model", model::DescribeConfig(o.config));
  benchmark::AddCustomContext("mlbench_attention_convention",
                              std::string(accounting::ConventionName(o.convention)));
}

}  // namespace
}  // namespace macro

int main(int argc, char** argv) {
  using namespace macro;
  // --help before benchmark::Initialize, which would answer it with its own flags only.
  if (harness::WantsHelp(argc, argv)) {
    harness::PrintFlagsHelp(kUsage);
    return 0;
  }
  const harness::StdoutUse stdout_use = harness::ReadStdoutUse(argc, argv);
  const bool listing = stdout_use.listing;            // stdout lists case names only
  if (stdout_use.ProgressToStderr()) g_log = stderr;  // keep machine-readable stdout clean
  // A relative --benchmark_out: the user's folder; an unwritable one: an error now, not after the run.
  // Taken over from Google Benchmark: written at the end through harness/atomic_file.h.
  absl::StatusOr<std::string> benchmark_out = harness::ResolveBenchmarkOut("gpt_step", &argc, argv);
  if (!benchmark_out.ok()) return harness::Fail("gpt_step", benchmark_out.status());
  benchmark::Initialize(&argc, argv);             // takes the --benchmark_* flags
  harness::ParseFlagsOrExit(argc, argv, kUsage);  // unknown flags: an error naming them, exit 1

  Run run;
  // Not an MPI program: several copies under one launcher would overwrite each other's files.
  if (auto st = comm::CheckNotMultiProcessLaunch("gpt_step", std::getenv); !st.ok()) {
    return harness::Fail("gpt_step", st);
  }
  auto options = ResolveStepOptions(ReadStepFlags(), sysinfo::ProbeCuda());
  if (!options.ok()) {
    return harness::Fail("gpt_step", options.status());
  }
  // Two outputs at one file: the later write would replace the earlier (the trace, or the JSON).
  if (auto st = harness::CheckDistinctOutputs(
          {{"--profile_out", options->profile ? options->profile_out : ""}, {"--benchmark_out", *benchmark_out}});
      !st.ok()) {
    return harness::Fail("gpt_step", st);
  }
  run.options = *options;
  g_run = &run;
  for (const std::string& c : run.options.choices) Log(absl::StrCat("gpt_step: ", c));
  // Path flags, as resolved (relative ones against the folder bazel run was started from).
  if (!run.options.data.empty()) Log(absl::StrCat("gpt_step: --data: reading ", run.options.data));
  if (!run.options.ceilings.empty())
    Log(absl::StrCat("gpt_step: --ceilings: reading ", run.options.ceilings));
  if (run.options.profile) Log(absl::StrCat("gpt_step: --profile_out: writing ", run.options.profile_out));

  const StepOptions& o = run.options;
  RegisterCases(&run);

  // Build the model and open the data before anything runs: a bad token file or too little
  // memory fails here, on stderr with a non-zero exit, not as a case that "ran" with an error.
  if (!listing) {
    if (auto st = EnsureSession(&run, run.results.front().recompute); !st.ok()) {
      return harness::Fail("gpt_step", st);
    }
  }
  // Each step's time in the --benchmark_out JSON, added before it is written.
  harness::SetBenchmarkOutJsonAmender([&run](const std::string& json) {
    return AddStepSeriesToJsonText(json, run.series, "the --benchmark_out report");
  });
  harness::RunOutcome outcome;
  const int rc = harness::RunSelectedBenchmarks("gpt_step", &outcome);
  if (rc != harness::kExitOk || listing) return rc;
  if (o.recompute_all) {
    PrintRecomputeTable(run);
  } else {
    for (const CaseResult& r : run.results) {
      if (r.ran && !r.steps.empty()) PrintSummary(run, r);
    }
  }
  if (o.compare_data) PrintCompareData(run);
  if (o.profile) {
    if (auto st = RunProfile(&run); !st.ok()) {
      std::fprintf(stderr, "gpt_step: error: profile: %s\n", std::string(st.message()).c_str());
      return harness::kExitFailure;
    }
  }
  benchmark::Shutdown();
  return harness::kExitOk;
}
