// ddp_step's figures after training: each rank's timed steps, gathered on every rank (the per-rank
// step time, MFU over its own peak, all-reduce time and share, tokens/s, loss, peak probes, machine
// and parameter hash), every rank's time of every step, and the gradient all-reduce's bandwidth.
#ifndef MACRO_DDP_FIGURES_H_
#define MACRO_DDP_FIGURES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "accounting/disturbed.h"
#include "macro/ddp_setup.h"
#include "macro/ddp_trainer.h"
#include "macro/gpt_session.h"

namespace macro {

// This rank's timed steps: the trainer's times and the process CPU seconds of each.
struct TimedSteps {
  std::vector<DdpStepTimes> times;
  std::vector<double> cpu_s;
};

// Every rank's figures over its timed steps, gathered on every rank (index: rank).
struct RankFigures {
  SeriesStats st;  // this rank's step times
  std::vector<double> mfus, steps_med, comm_med, comm_share, tps, sums, hashes, losses, peaks;
  std::vector<double> comm_total_med, local_ranks;  // all-reduce time incl. overlapped; MPI local rank
  std::vector<std::string> machines;               // each rank's CPU / GPU and GEMM library
  std::vector<double> probe_before, probe_after;   // 0: not probed (a figure from a flag or file)
  // Each rank's figure furthest below this machine's record, and that record (0: none judged;
  // accounting::WorstRecordCheck).
  std::vector<double> record_figure, record_value;
  bool identical = false;                          // parameters identical on every rank after the last step
  accounting::Disturbance disturbance;             // any rank's, each reason prefixed "rank q: "
};

// Collective: every rank gathers every rank's figures; a rank's MFU above 103%, its peak probes
// more than 10% apart, or its best probe more than 15% below this machine's record make the run
// DISTURBED (accounting/disturbed.h).
absl::StatusOr<RankFigures> GatherRankFigures(const DdpSetup& s, const TimedSteps& timed);

// Every rank's time of every timed step, gathered on every rank: [rank][step].
struct StepMatrix {
  std::vector<std::vector<double>> total, comm, cpu;
};
absl::StatusOr<StepMatrix> GatherStepMatrix(comm::MpiWorld* world, const TimedSteps& timed);

// The gradient all-reduce's size and bandwidth (nccl-tests' definitions), from the ranks'
// median total all-reduce time per step.
struct CommFigures {
  double bytes = 0, total_s = 0, exposed_s = 0, exposed_share = 0, algbw = 0, busbw = 0, link_bps = 0;
};
CommFigures CommOf(const DdpSetup& s, const RankFigures& f);

}  // namespace macro

#endif  // MACRO_DDP_FIGURES_H_
