// ddp_step's report (ddp_report.h).
#include "macro/ddp_report.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/mfu.h"
#include "accounting/throughput.h"
#include "comm/cluster_link.h"
#include "harness/atomic_file.h"
#include "harness/benchmark_json.h"
#include "macro/ddp_accounting.h"
#include "model/cuda/attention_choice.h"
#include "model/gpt_config.h"
#include "nlohmann/json.hpp"
#include "sysinfo/cpu_info.h"

namespace macro {
namespace {

// The attention that ran, as gpt_step's JSON context records it (attention_choice.h).
void AddAttentionRecord(const DdpSetup& s, nlohmann::json* j) {
  (*j)["mlbench_attention_impl"] = model::cuda::AttentionImplRecord(s.attention_choice);
  (*j)["mlbench_attention_choice"] =
      s.attention_choice.empty() ? "the CPU model's attention (no choice)" : s.attention_choice;
}

// --json_out: the per-rank figures.
nlohmann::json RankJson(const DdpSetup& s, const RankFigures& f) {
  const int W = s.world->size();
  const StepOptions& o = s.o;
  nlohmann::json j;
  j["case"] = DdpCaseName(s);
  j["ranks"] = W;
  j["device"] = o.device;
  j["allreduce"] = s.reducer->name();
  j["model"] = model::DescribeConfig(o.config);
  j["batch_per_rank"] = o.batch;
  j["seq"] = o.seq;
  j["grad_accum"] = s.grad_accum;
  j["timed_steps"] = f.st.n;
  j["local_flops_per_step"] = s.flops.model_flops_per_step;
  j["peak_flops_per_device"] = s.peak.flops_per_s;  // rank 0's; each rank's in per_rank
  j["peak_source"] = s.peak.source;
  j["peak_rule"] = s.peak_rule;
  AddAttentionRecord(s, &j);
  if (o.device == "cpu") {
    const sysinfo::CpuInfo cpu = sysinfo::ReadCpuInfo();
    j["threads_per_rank"] = o.threads;
    j["cores"] = cpu.physical_cores > 0 ? cpu.physical_cores : std::max(1, cpu.logical_cpus);
  }
  j["mfu_convention"] = "local work / (step seconds x one device's peak)";
  j["hosts"] = s.world->num_hosts();
  j["link"] = comm::LinkDescription();
  const CommFigures c = CommOf(s, f);
  j["overlap"] = s.overlap != nullptr;
  j["bucket_mb"] = s.overlap != nullptr ? s.bucket_mb : 0.0;
  j["comm"] = {{"allreduce_bytes", c.bytes},
               {"total_ms_median", c.total_s * 1e3},
               {"exposed_ms_median", c.exposed_s * 1e3},
               {"exposed_share_median", c.exposed_share},
               {"algbw", c.algbw},
               {"busbw", c.busbw},
               {"link_rate_bps", c.link_bps}};
  j["per_rank"] = nlohmann::json::array();
  for (int q = 0; q < W; ++q) {
    j["per_rank"].push_back({{"rank", q},
                             {"host", s.world->hosts()[q]},
                             {"local_rank", static_cast<int>(f.local_ranks[q])},
                             {"machine", f.machines[q]},
                             {"mfu", f.mfus[q]},
                             {"step_ms_median", f.steps_med[q] * 1e3},
                             {"comm_ms_median", f.comm_med[q] * 1e3},
                             {"comm_exposed_ms_median", f.comm_med[q] * 1e3},
                             {"comm_total_ms_median", f.comm_total_med[q] * 1e3},
                             {"comm_share", f.comm_share[q]},
                             {"tokens_per_second", f.tps[q]},
                             {"loss", f.losses[q]},
                             {"peak_flops", f.peaks[q]}});
  }
  if (auto sm = SummariseRanks(f.mfus); sm.ok()) {
    j["mfu_summary"] = {{"min", sm->min}, {"median", sm->median}, {"max", sm->max}, {"mean", sm->mean}};
  }
  j["params_identical"] = f.identical;
  j["disturbed"] = f.disturbance.disturbed;
  if (f.disturbance.disturbed) j["disturbed_reason"] = f.disturbance.reason;
  return j;
}

// --benchmark_out: one Google Benchmark iteration entry per timed step (harness/benchmark_json.h).
// real_time is the slowest rank's step, cpu_time the largest process CPU time of a rank (all its
// threads) in that step; the counters are over the ranks; verified = parameters identical.
absl::StatusOr<nlohmann::json> BenchmarkJsonOf(const DdpSetup& s, const RankFigures& f, const StepMatrix& m,
                                               const std::string& executable) {
  const int W = s.world->size();
  const int n = m.total.empty() ? 0 : static_cast<int>(m.total[0].size());
  const double global_tokens = static_cast<double>(W) * s.o.tokens_per_step() * s.grad_accum;
  std::vector<harness::BenchmarkEntry> entries;
  for (int i = 0; i < n; ++i) {
    harness::BenchmarkEntry e;
    e.name = DdpCaseName(s);
    e.repetitions = n;
    e.repetition_index = i;
    e.time_unit = "ms";
    double slowest = 0, cpu = 0, mfu_sum = 0, mfu_min = 1e300, share_sum = 0;
    for (int q = 0; q < W; ++q) {
      slowest = std::max(slowest, m.total[q][i]);
      cpu = std::max(cpu, m.cpu[q][i]);
      const double mfu = s.flops.model_flops_per_step / std::max(m.total[q][i] * f.peaks[q], 1e-30);
      mfu_sum += mfu;
      mfu_min = std::min(mfu_min, mfu);
      share_sum += m.comm[q][i] / std::max(m.total[q][i], 1e-30);
    }
    e.real_time = slowest * 1e3;
    e.cpu_time = cpu * 1e3;
    e.counters = {{"mfu", mfu_sum / W},
                  {"mfu_min", mfu_min},
                  {"comm_share", share_sum / W},
                  {"tokens_per_second", global_tokens / std::max(slowest, 1e-30)},
                  {"flops_per_step", s.flops.model_flops_per_step * W},
                  {"ranks", W},
                  {"grad_accum", s.grad_accum},
                  {"verified", f.identical ? 1.0 : 0.0},
                  {"disturbed", f.disturbance.disturbed ? 1.0 : 0.0}};
    e.label = accounting::DisturbedLabel(f.disturbance, "");
    entries.push_back(std::move(e));
  }
  nlohmann::json context = harness::BenchmarkContext(executable);
  context["mlbench_ddp_allreduce"] = s.reducer->name();
  context["mlbench_ddp_peak_source"] = s.peak.source;
  AddAttentionRecord(s, &context);
  return harness::BenchmarkJson(context, entries);
}

}  // namespace

std::string DdpCaseName(const DdpSetup& s) {
  return absl::StrCat("BM_DdpStep/", s.o.CaseName(), "/ranks:", s.world->size(), "/accum:", s.grad_accum);
}

void LogRankTable(const DdpSetup& s, const RankFigures& f) {
  Log0(s.world, absl::StrCat("\n== per-rank figures: ", DdpCaseName(s), ", ", f.st.n, " timed steps after ",
                    s.o.warmup_steps, " warm-up",
                    f.disturbance.disturbed ? absl::StrCat(" | DISTURBED: ", f.disturbance.reason) : ""));
  Log0(s.world, absl::StrFormat("%4s %-12s %5s %11s %12s %11s %9s %12s %9s %12s %8s", "rank", "host", "local", "step ms",
                       "exposed ms", "comm ms", "exposed", "tokens/s", "loss", "peak GFLOP/s", "MFU"));
  bool differ = false;
  for (int q = 0; q < s.world->size(); ++q) {
    const bool other_machine = f.machines[q] != f.machines[0];
    differ = differ || other_machine;
    Log0(s.world, absl::StrFormat("%4d %-12s %5d %11.3f %12.3f %11.3f %8.1f%% %12.1f %9.4f %12.1f %8s%s", q,
                         s.world->hosts()[q], static_cast<int>(f.local_ranks[q]), f.steps_med[q] * 1e3,
                         f.comm_med[q] * 1e3, f.comm_total_med[q] * 1e3, 100 * f.comm_share[q], f.tps[q],
                         f.losses[q], f.peaks[q] / 1e9, accounting::FormatPercent(f.mfus[q]),
                         other_machine ? "  *" : ""));
  }
  Log0(s.world, "(exposed: the all-reduce time the step waited for; comm: all of it, overlapped with backward or not;\n"
       " local: the rank on its host; each rank's MFU is over its own host's peak, column 'peak')");
  if (differ) {
    Log0(s.world, absl::StrCat("* this rank's machine differs from rank 0's (", f.machines[0],
                      "): its MFU is over its own peak, but the job runs at its slowest rank's pace"));
    for (int q = 1; q < s.world->size(); ++q) {
      if (f.machines[q] != f.machines[0]) Log0(s.world, absl::StrCat("  rank ", q, " (", s.world->hosts()[q], "): ", f.machines[q]));
    }
  } else {
    Log0(s.world, absl::StrCat("machine       every rank: ", f.machines[0]));
  }
}

// MFU and all-reduce share across ranks; what the MFU divides.
void LogRankSummary(const DdpSetup& s, const RankFigures& f) {
  const int W = s.world->size();
  const double local_flops = s.flops.model_flops_per_step;
  auto sm = SummariseRanks(f.mfus);
  auto scs = SummariseRanks(f.comm_share);
  auto scm = SummariseRanks(f.comm_med);
  if (sm.ok()) {
    Log0(s.world, absl::StrFormat("MFU per rank  min %s (rank %d) | median %s | max %s (rank %d) | mean %s",
                         accounting::FormatPercent(sm->min), sm->argmin,
                         accounting::FormatPercent(sm->median), accounting::FormatPercent(sm->max),
                         sm->argmax, accounting::FormatPercent(sm->mean)));
    if (s.o.recompute != accounting::Recompute::kNone && local_flops > 0) {
      const double ratio = s.flops.hardware_flops_per_step / local_flops;
      Log0(s.world, absl::StrFormat("HFU per rank  median %s: MFU x %.4f, the formula's hardware / model FLOPs with "
                                    "--recompute=%s (the backward's recomputed forward; MFU does not count it)",
                                    accounting::FormatPercent(sm->median * ratio), ratio,
                                    RecomputeFlagName(s.o.recompute, s.o.config)));
    }
  }
  const CommFigures c = CommOf(s, f);
  if (W > 1) {
    std::string link;
    if (c.link_bps > 0) {
      link = absl::StrFormat("; busbw is %.0f%% of the %.3g Gbit/s link", 100 * c.busbw * 8 / c.link_bps,
                             c.link_bps / 1e9);
    }
    Log0(s.world, absl::StrFormat(
        "comm          all-reduce of %.4g MB of fp32 gradients per step, %s: %.3f ms (ranks' median), algbw "
        "%.3f GB/s, busbw %.3f GB/s (nccl-tests: algbw = bytes / time, busbw = algbw x 2(n-1)/n)%s",
        c.bytes / 1e6, s.overlap ? "in buckets overlapped with backward" : "after backward",
        c.total_s * 1e3, c.algbw / 1e9, c.busbw / 1e9, link));
  }
  if (scs.ok() && scm.ok()) {
    Log0(s.world, absl::StrFormat(
        "lost to communication (exposed): %.3f ms per step (ranks' median; max %.3f ms) = %.1f%% of the step "
        "(min %.1f%% | median %.1f%% | max %.1f%% | mean %.1f%%)%s",
        scm->median * 1e3, scm->max * 1e3, 100 * scs->median, 100 * scs->min, 100 * scs->median, 100 * scs->max,
        100 * scs->mean,
        s.overlap ? absl::StrFormat("; %.1f%% of the all-reduce time hidden under backward",
                                    c.total_s > 0 ? 100 * std::max(0.0, 1 - c.exposed_s / c.total_s) : 0.0)
                  : " (no overlap: all of it)"));
    Log0(s.world, "              (the all-reduce time includes waiting for slower ranks)");
  }
  Log0(s.world, absl::StrFormat(
      "numerator     LOCAL work per rank: B=%d x accum=%d x T=%d tokens x %.4g FLOPs/token "
      "(%s) = %.4g FLOPs per step",
      s.o.batch, s.grad_accum, s.o.seq, s.flops.model_flops_per_token, s.flops.Describe(), local_flops));
  Log0(s.world, absl::StrFormat(
      "denominator   step seconds (data, forward, backward, all-reduce, optimizer) x ONE device's peak: "
      "each rank's own (column 'peak'); rank 0's %.4g FLOP/s: %s",
      s.peak.flops_per_s, s.peak.source));
  if (std::find_if(f.probe_after.begin(), f.probe_after.end(), [](double x) { return x > 0; }) !=
      f.probe_after.end()) {
    std::string probes;
    for (int q = 0; q < W; ++q) {
      absl::StrAppend(&probes, q ? "; " : "", "rank ", q, " ",
                      absl::StrFormat("%.1f -> %.1f", f.probe_before[q] / 1e9, f.probe_after[q] / 1e9));
    }
    Log0(s.world, absl::StrCat("peak probes   GFLOP/s before -> after the steps, the best taken: ", probes));
  }
  auto inflated = InflatedMfu(local_flops * f.st.n, W, f.sums[0], s.peak.flops_per_s);
  auto deflated = DeflatedMfu(local_flops * f.st.n, W, f.sums[0], s.peak.flops_per_s);
  if (W > 1 && inflated.ok() && deflated.ok()) {
    Log0(s.world, absl::StrFormat(
        "not used      rank 0's global work / one peak = %s (x%d too high); local work / all %d "
        "peaks = %s (/%d too low)",
        accounting::FormatPercent(*inflated), W, W, accounting::FormatPercent(*deflated), W));
  }
}

// Tokens/s of the whole job, the scaling against a 1-rank run, and whether the ranks agree.
void LogThroughputAndScaling(const DdpSetup& s, const RankFigures& f, double baseline) {
  const int W = s.world->size();
  double mean_sum = 0;
  for (double x : f.sums) mean_sum += x / W;
  accounting::TokenCount num;
  // Exact count: every rank trains B x accum x T tokens per step.
  num.tokens = static_cast<double>(W) * s.o.batch * s.grad_accum * s.o.seq * f.st.n;
  num.ranks = accounting::RankScope::kAllRanks;
  num.world_size = W;
  num.includes_grad_accum = s.grad_accum > 1;
  accounting::TimedPhases den;
  den.data = true;
  den.optimizer = true;
  // The last micro-step's loss is read after the step's last clock mark (not timed); with
  // accumulation the earlier micro-steps' losses are read inside the timed span (ddp_trainer.cc).
  den.logging = s.grad_accum > 1;
  auto tp = accounting::TrainingThroughput::Make(num, mean_sum, den);
  if (tp.ok()) Log0(s.world, absl::StrCat("tokens/s      ", tp->ToString()));
  if (W == 1) {
    Log0(s.world, 
        absl::StrFormat("baseline      1 rank: this is the non-DDP MFU (%s); give --baseline_mfu=%.6f to an "
                        "N-rank run of the same config for its scaling loss",
                        accounting::FormatPercent(f.mfus[0]), f.mfus[0]));
  }
  auto sm = SummariseRanks(f.mfus);
  if (baseline > 0 && sm.ok()) {
    auto ratio = ScalingRatio(sm->mean, baseline);
    if (ratio.ok()) {
      Log0(s.world, absl::StrFormat("scaling       mean MFU at %d ranks %s vs 1 rank %s: %.3f (scaling loss %.1f%%)",
                           W, accounting::FormatPercent(sm->mean), accounting::FormatPercent(baseline),
                           *ratio, 100 * (1 - *ratio)));
    }
  }
  Log0(s.world, f.identical ? "parameters    identical on every rank after the last step (hash of the bytes)"
                   : "parameters    DIFFER across ranks after the last step: the all-reduce or the data "
                     "split is wrong");
}

// Rank 0 writes the files asked for; false when one could not be written.
bool WriteOutputs(const DdpSetup& s, const RankFigures& f, const StepMatrix& m, const std::string& executable) {
  bool ok = true;
  if (const std::string& path = s.json_out; !path.empty()) {
    if (auto st = harness::WriteJsonFile("--json_out", path, RankJson(s, f)); !st.ok()) {
      std::fprintf(stderr, "ddp_step: error: %s\n", std::string(st.message()).c_str());
      ok = false;
    } else {
      Log0(s.world, absl::StrCat("json          ", path));
    }
  }
  if (const std::string& path = s.benchmark_out; !path.empty()) {
    absl::StatusOr<nlohmann::json> j = BenchmarkJsonOf(s, f, m, executable);
    absl::Status st = j.ok() ? harness::WriteJsonFile("--benchmark_out", path, *j) : j.status();
    if (!st.ok()) {
      std::fprintf(stderr, "ddp_step: error: %s\n", std::string(st.message()).c_str());
      ok = false;
    } else {
      Log0(s.world, absl::StrCat("benchmark     ", path, " (Google Benchmark JSON, one entry per timed step)"));
    }
  }
  return ok;
}

}  // namespace macro
