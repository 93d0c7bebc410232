// GatherRankFigures, GatherStepMatrix and CommOf (ddp_figures.h).
#include "macro/ddp_figures.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "accounting/allreduce_bw.h"
#include "comm/cluster_link.h"
#include "macro/ddp_accounting.h"

namespace macro {
namespace {

// Per rank: its MFU above 103%, its peak probes more than 10% apart, or its best probe more than
// 15% below this machine's record.
accounting::Disturbance JudgeRanks(const DdpSetup& s, const RankFigures& f) {
  std::vector<std::string> why;
  for (int q = 0; q < s.world->size(); ++q) {
    accounting::PeakProbes p;
    p.before = f.probe_before[q];
    p.after = f.probe_after[q];
    if (f.record_value[q] > 0) {
      p.records.push_back({"peak probe (the best of start-up and after)", f.record_figure[q], f.record_value[q],
                           "FLOP/s", absl::StrCat("rank ", q)});
    }
    const accounting::Disturbance d = accounting::JudgeDisturbance(
        {{"MFU", s.flops.model_flops_per_step * f.st.n / std::max(f.sums[q], 1e-30), f.peaks[q]}}, p);
    if (d.disturbed) why.push_back(absl::StrCat("rank ", q, ": ", d.reason));
  }
  accounting::Disturbance all;
  all.disturbed = !why.empty();
  all.reason = absl::StrJoin(why, "; ");
  return all;
}

}  // namespace

absl::StatusOr<RankFigures> GatherRankFigures(const DdpSetup& s, const TimedSteps& timed) {
  const int W = s.world->size();
  std::vector<double> totals, comms, comm_totals;
  for (const DdpStepTimes& t : timed.times) {
    totals.push_back(t.total());
    comms.push_back(t.comm);
    comm_totals.push_back(t.comm_total);
  }
  RankFigures f;
  f.st = Summarise(totals);
  const SeriesStats sc = Summarise(comms);
  const SeriesStats sct = Summarise(comm_totals);
  auto mfu = PerRankMfu(s.flops.model_flops_per_step * f.st.n, f.st.sum, s.peak.flops_per_s);
  const double local_tokens = static_cast<double>(s.o.tokens_per_step()) * s.grad_accum * f.st.n;
  auto hash = ParamsHash(s.model.get());
  const std::optional<accounting::RecordCheck> worst = accounting::WorstRecordCheck(s.probes);
  const std::vector<double> mine = {mfu.ok() ? *mfu : 0,
                                    f.st.median,
                                    sc.median,
                                    sc.sum / std::max(f.st.sum, 1e-30),
                                    local_tokens / std::max(f.st.sum, 1e-30),
                                    f.st.sum,
                                    hash.ok() ? static_cast<double>(*hash >> 12) : -1,
                                    timed.times.empty() ? 0 : timed.times.back().loss,
                                    s.peak.flops_per_s,
                                    s.probes.before,
                                    s.probes.after,
                                    sct.median,
                                    static_cast<double>(s.world->local_rank()),
                                    worst ? worst->figure : 0,
                                    worst ? worst->record : 0};
  const int kF = static_cast<int>(mine.size());
  auto all = s.world->AllgatherDoubles(mine);
  if (!all.ok()) return all.status();
  auto field = [&](int k) {
    std::vector<double> v(W);
    for (int q = 0; q < W; ++q) v[q] = (*all)[q * kF + k];
    return v;
  };
  f.mfus = field(0), f.steps_med = field(1), f.comm_med = field(2), f.comm_share = field(3), f.tps = field(4);
  f.sums = field(5), f.hashes = field(6), f.losses = field(7), f.peaks = field(8);
  f.probe_before = field(9), f.probe_after = field(10);
  f.comm_total_med = field(11), f.local_ranks = field(12);
  f.record_figure = field(13), f.record_value = field(14);
  auto machines = s.world->AllgatherStrings(s.machine);
  if (!machines.ok()) return machines.status();
  f.machines = std::move(*machines);
  f.disturbance = JudgeRanks(s, f);
  f.identical =
      std::all_of(f.hashes.begin(), f.hashes.end(), [&](double h) { return h == f.hashes[0] && h >= 0; });
  return f;
}

absl::StatusOr<StepMatrix> GatherStepMatrix(comm::MpiWorld* world, const TimedSteps& timed) {
  const int W = world->size(), n = static_cast<int>(timed.times.size());
  std::vector<double> mine;
  for (int i = 0; i < n; ++i) {
    mine.insert(mine.end(), {timed.times[i].total(), timed.times[i].comm, timed.cpu_s[i]});
  }
  auto all = world->AllgatherDoubles(mine);
  if (!all.ok()) return all.status();
  StepMatrix m;
  m.total.assign(W, std::vector<double>(n));
  m.comm = m.cpu = m.total;
  for (int q = 0; q < W; ++q) {
    for (int i = 0; i < n; ++i) {
      const double* v = &(*all)[(static_cast<size_t>(q) * n + i) * 3];
      m.total[q][i] = v[0];
      m.comm[q][i] = v[1];
      m.cpu[q][i] = v[2];
    }
  }
  return m;
}

CommFigures CommOf(const DdpSetup& s, const RankFigures& f) {
  CommFigures c;
  c.bytes = 4.0 * static_cast<double>(s.model->num_params());
  auto total = SummariseRanks(f.comm_total_med);
  auto exposed = SummariseRanks(f.comm_med);
  auto share = SummariseRanks(f.comm_share);
  if (total.ok()) c.total_s = total->median;
  if (exposed.ok()) c.exposed_s = exposed->median;
  if (share.ok()) c.exposed_share = share->median;
  const int W = s.world->size();
  if (auto bw = accounting::AllreduceBandwidth(static_cast<int64_t>(c.bytes), c.total_s, W); bw.ok() && W > 1) {
    c.algbw = bw->algbw;
    c.busbw = bw->busbw;
  }
  c.link_bps = comm::LinkRateBps();
  return c;
}

}  // namespace macro
