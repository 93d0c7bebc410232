// ddp_step's set-up: what a rank builds before training (its options, the gradient all-reducer,
// the model on its own device, the peak of that device, the FLOPs of its local work, its data
// shard and its step clock). Collective: every rank checks what it can, then all of them learn
// every rank's error (AllOk), so that the job stops everywhere with one message.
#ifndef MACRO_DDP_SETUP_H_
#define MACRO_DDP_SETUP_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "accounting/disturbed.h"
#include "accounting/gpt_flops.h"
#include "accounting/peaks.h"
#include "comm/grad_allreduce.h"
#include "comm/mpi_world.h"
#include "comm/overlapped_allreduce.h"
#include "macro/rank_peak.h"
#include "macro/step_clock.h"
#include "macro/step_options.h"
#include "model/data/batch_source.h"
#include "model/gpt_model.h"

namespace macro {

// ddp_step's own flags (besides gpt_step's, macro/step_flags.h), as given.
struct DdpFlags {
  int grad_accum = 1;
  bool overlap = true;
  double bucket_mb = 25;
  bool bucket_mb_given = false;  // --bucket_mb on the command line (it means nothing without --overlap)
  std::string json_out;          // as given; relative paths are the user's folder's
  std::string benchmark_out;
};

// Everything one rank trains with.
struct DdpSetup {
  comm::MpiWorld* world = nullptr;  // not owned
  StepOptions o;
  int grad_accum = 1;
  double bucket_mb = 0;  // the --overlap buckets' size in MB; 0 without them
  std::unique_ptr<model::GptModel> model;
  std::unique_ptr<comm::GradAllReducer> reducer;
  std::unique_ptr<comm::OverlappedAllReducer> overlap;  // --overlap on the CPU; else null
  std::string machine;  // this rank's CPU / GPU and GEMM library, compared across hosts
  std::unique_ptr<model::BatchSource> source;
  std::unique_ptr<StepClock> clock;
  accounting::Peak peak;          // this rank's device's peak (after training: the best probe)
  RankPeak run_peak;              // the start-up choice (rank_peak.h)
  accounting::PeakProbes probes;  // before and after the steps, when measured at start-up
  std::string peak_rule;          // which case of rank_peak.h applied
  std::string attention_choice;   // the CUDA model's attention and why (rank 0's); "" on the CPU
  accounting::StepFlops flops;    // one rank's: batch x accum x seq tokens
  std::string json_out;           // --json_out, --benchmark_out: absolute (harness/user_path.h)
  std::string benchmark_out;
};

// Rank 0 prints `s` (a line) on stdout; the other ranks print nothing.
void Log0(const comm::MpiWorld* world, const std::string& s);

// Every rank's `local` for one stage: if any failed, every rank gets the same error naming them.
absl::Status AllOk(comm::MpiWorld* world, const std::string& stage, const absl::Status& local);

// The set-up of this rank, from gpt_step's flags (read here) and `flags`; collective: every rank
// returns the same status. Errors name the flag (a value out of range, a flag that differs across
// ranks, --bucket_mb without --overlap's buckets, an unwritable output) or the rank that failed.
absl::Status BuildDdpSetup(comm::MpiWorld* world, const DdpFlags& flags, DdpSetup* s);

}  // namespace macro

#endif  // MACRO_DDP_SETUP_H_
