// //macro:ddp_step — data-parallel GPT-2 training with per-rank MFU.
//
//   mpirun -np N bazel-out/k8-opt/bin/macro/ddp_step [gpt_step's flags] [--grad_accum=A]
//   bazel run //macro:ddp_step_mpirun -- -np 2 [flags]         (mpirun around the binary)
//
// Each rank trains the same model (rank 0's parameters, broadcast at start) on its own data
// shard (random batch seeded seed + rank, or token-file windows drawn with seed + rank); after
// backward the gradients are averaged: MPI_Allreduce on CPUs, NCCL on GPUs (one GPU per rank by
// local rank; the NCCL id is broadcast over MPI). Rank 0 prints the per-rank table: each rank's
// MFU is its LOCAL work (batch x accumulation x seq x FLOPs per token) over ONE device's peak
// (the rank's own: its GPU, or the FMA peak measured with its own threads; rank_peak.h),
// summarised as min / median / max / mean, with the all-reduce time and its share of the step.
// One rank is the non-DDP baseline; --baseline_mfu=X (a 1-rank run's figure) prints the scaling.
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "accounting/allreduce_bw.h"
#include "accounting/mfu.h"
#include "accounting/throughput.h"
#include "comm/cluster_link.h"
#include "comm/grad_allreduce.h"
#include "comm/mpi_world.h"
#include "comm/overlapped_allreduce.h"
#include "harness/atomic_file.h"
#include "harness/benchmark_json.h"
#include "harness/exit_codes.h"
#include "harness/fail.h"
#include "harness/flags_main.h"
#include "harness/user_path.h"
#include "macro/ddp_accounting.h"
#include "macro/ddp_trainer.h"
#include "macro/gpt_session.h"
#include "macro/make_model.h"
#include "accounting/disturbed.h"
#include "macro/rank_flags.h"
#include "macro/rank_peak.h"
#include "macro/step_clock.h"
#include "macro/step_flags.h"
#include "macro/step_options.h"
#include "model/cuda/attention_choice.h"
#include "model/cuda/cuda_model.h"
#include "model/data/batch_source.h"
#include "model/data/token_file.h"
#include "model/gemm_info.h"
#include "model/gpt_config.h"
#include "nlohmann/json.hpp"
#include "sysinfo/cpu_info.h"
#include "sysinfo/cuda_info.h"

// gpt_step's flags come from macro/step_flags.cc; ddp_step's own:
ABSL_FLAG(int, grad_accum, 1, "gradient-accumulation micro-steps per optimizer step (>= 1)");
ABSL_FLAG(double, timeout_s, 120,
          "a collective that takes longer ends the rank with an error, exit 5 (a peer died or hung); <= 0: "
          "none");
ABSL_FLAG(double, baseline_mfu, 0,
          "MFU of a 1-rank run of the same config: prints the scaling loss (MFU at N / MFU at 1)");
ABSL_FLAG(std::string, json_out, "",
          "rank 0 writes the per-rank figures here as JSON (temp file, then rename)");
ABSL_FLAG(
    std::string, benchmark_out, "",
    "rank 0 writes Google Benchmark JSON here: one iteration entry per timed step (real_time: the slowest "
    "rank's step, ms), the run context, counters mfu, mfu_min, comm_share, tokens_per_second, verified; "
    "tools/gate and compare.py read it");
ABSL_FLAG(bool, overlap, true,
          "CPU: all-reduce the gradients in buckets during backward, in reverse layer order, on a "
          "communication thread (PyTorch DDP's scheme); false: one all-reduce after backward. The CUDA "
          "model all-reduces after backward either way");
ABSL_FLAG(double, bucket_mb, 25,
          "--overlap's bucket size in MB (10^6 bytes) of fp32 gradients (PyTorch DDP's bucket_cap_mb: 25)");
ABSL_FLAG(int, test_exit_rank, -1,
          "testing: this rank exits (code 7) at --test_fail_step without a word to the others");
ABSL_FLAG(int, test_hang_rank, -1, "testing: this rank stops responding at --test_fail_step");
ABSL_FLAG(int, test_fail_step, 2,
          "testing: the step (from 1, warm-up included) at which the test rank fails");

namespace macro {
namespace {

comm::MpiWorld* g_world = nullptr;

void Log0(const std::string& s) {
  if (g_world != nullptr && g_world->rank() != 0) return;
  std::fputs(s.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

// CPUs this process may run on (its affinity mask); 0 when unknown.
int AffinityCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
  return CPU_COUNT(&set);
}

std::string Prefix() { return absl::StrCat("ddp_step: rank ", g_world ? g_world->rank() : 0); }

// Every rank's `local` for one stage: if any failed, every rank gets the same error naming them.
absl::Status AllOk(const std::string& stage, const absl::Status& local) {
  auto all = g_world->AllgatherStrings(local.ok() ? "" : std::string(local.message()));
  if (!all.ok()) return all.status();
  std::string msg;
  for (int r = 0; r < g_world->size(); ++r) {
    if (!(*all)[r].empty()) absl::StrAppend(&msg, msg.empty() ? "" : "; ", "rank ", r, ": ", (*all)[r]);
  }
  if (msg.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(stage, ": ", msg));
}

// The flags of the flag table that need not have one value on every rank (rank_flags.h); every
// other flag, gpt_step's shared ones and ddp_step's own, must.
const std::vector<RankOwnFlag>& RankOwnFlags() {
  static const auto* own = new std::vector<RankOwnFlag>{
      {"threads", false,
       "each rank's own CPU threads (default: the node's cores / its ranks); a rank's MFU is over the "
       "peak of its own threads"},
      {"timeout_s", false, "each rank's own watchdog; it changes no figure"},
      {"json_out", true, "rank 0 writes it; given to another rank alone it would be ignored"},
      {"benchmark_out", true, "rank 0 writes it; given to another rank alone it would be ignored"},
  };
  return *own;
}

// Every rank's flags (rank_flags.h) must equal rank 0's; else every rank gets one error naming
// each rank's flags that differ, with rank 0's values.
absl::Status CheckFlagsAgree() {
  absl::StatusOr<std::string> mine = RankAgreementLines(RankOwnFlags());
  if (auto st = AllOk("flags", mine.status()); !st.ok()) return st;
  auto all = g_world->AllgatherStrings(*mine);
  if (!all.ok()) return all.status();
  std::vector<std::string> differ;
  for (int r = 1; r < g_world->size(); ++r) {
    std::vector<std::string> d = FlagDifferences((*all)[0], (*all)[r]);
    if (!d.empty()) differ.push_back(absl::StrCat("rank ", r, ": ", absl::StrJoin(d, ", ")));
  }
  if (differ.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "configuration differs across ranks (every rank must be given the same flags, except --threads and "
      "--timeout_s; --json_out and --benchmark_out, which rank 0 writes, to every rank or to none): ",
      absl::StrJoin(differ, "; ")));
}

// What must agree across ranks once resolved (device and dtype "auto" may resolve differently).
std::string Fingerprint(const StepOptions& o, int grad_accum) {
  return absl::StrCat(model::DescribeConfig(o.config), " ", o.CaseName(), " accum=", grad_accum,
                      " warmup=", o.warmup_steps, " steps=", o.steps, " seed=", o.seed,
                      " real_data=", o.real_data, " data=", o.data,
                      " attention=", accounting::ConventionName(o.convention),
                      absl::StrFormat(" lr=%g wd=%g b1=%g b2=%g peak=%g", o.lr, o.weight_decay, o.beta1,
                                      o.beta2, o.peak_flops),
                      " ceilings=", o.ceilings, " overlap=", absl::GetFlag(FLAGS_overlap),
                      " bucket_mb=", absl::GetFlag(FLAGS_bucket_mb));
}

// "host0: ranks 0, 1; host1: ranks 2, 3".
std::string HostsText() {
  std::map<std::string, std::vector<int>> ranks;
  std::vector<std::string> order;
  for (int q = 0; q < g_world->size(); ++q) {
    const std::string& h = g_world->hosts()[q];
    if (ranks[h].empty()) order.push_back(h);
    ranks[h].push_back(q);
  }
  std::string text;
  for (const std::string& h : order) {
    absl::StrAppend(&text, text.empty() ? "" : "; ", h, ": rank", ranks[h].size() > 1 ? "s " : " ",
                    absl::StrJoin(ranks[h], ", "));
  }
  return text;
}

struct Setup {
  StepOptions o;
  int grad_accum = 1;
  std::unique_ptr<model::GptModel> model;
  std::unique_ptr<comm::GradAllReducer> reducer;
  std::unique_ptr<comm::OverlappedAllReducer> overlap;  // --overlap on the CPU; else null
  std::string machine;  // this rank's CPU / GPU and GEMM library, compared across hosts
  std::unique_ptr<model::BatchSource> source;
  std::unique_ptr<StepClock> clock;
  accounting::Peak peak;        // this rank's device's peak (after training: the best probe)
  RankPeak run_peak;            // the start-up choice (rank_peak.h)
  accounting::PeakProbes probes;  // before and after the steps, when measured at start-up
  std::string peak_rule;        // which case of rank_peak.h applied
  std::string attention_choice;  // the CUDA model's attention and why (rank 0's); "" on the CPU
  accounting::StepFlops flops;  // one rank's: batch x accum x seq tokens
  std::string json_out;         // --json_out, --benchmark_out: absolute (harness/user_path.h)
  std::string benchmark_out;
};

// --json_out and --benchmark_out, resolved against the user's folder and checked writable before
// the run: an unwritable path is an error now, not after the training steps.
absl::Status ResolveOutputs(Setup* s) {
  for (const auto& [flag, value, dest] :
       {std::tuple{"--json_out", absl::GetFlag(FLAGS_json_out), &s->json_out},
        std::tuple{"--benchmark_out", absl::GetFlag(FLAGS_benchmark_out), &s->benchmark_out}}) {
    *dest = harness::UserPath(value);
    if (dest->empty()) continue;
    if (absl::Status w = harness::CheckWritable(*dest); !w.ok())
      return absl::Status(w.code(), absl::StrCat(flag, ": ", w.message()));
  }
  return absl::OkStatus();
}

// CPU threads per rank when --threads is not given: the node's cores shared among its ranks,
// no more than the CPUs the rank is bound to. Recorded in o->choices.
void ChooseThreadsPerRank(StepOptions* o) {
  sysinfo::CpuInfo cpu = sysinfo::ReadCpuInfo();
  int cores = cpu.physical_cores > 0 ? cpu.physical_cores : std::max(1, cpu.logical_cpus);
  o->threads = std::max(1, cores / g_world->local_size());
  std::string why = absl::StrCat(cores, " cores / ", g_world->local_size(), " ranks on this node");
  // mpirun binds each rank to one core by default when there are no more ranks than cores:
  // more threads than the rank may run on would share that core.
  if (const int bound = AffinityCpus(); bound > 0 && bound < o->threads) {
    o->threads = bound;
    absl::StrAppend(&why, "; this rank may run on ", bound, bound == 1 ? " CPU" : " CPUs",
                    " (its affinity: mpirun's binding, which --bind-to none lifts, or its host's CPUs under "
                    "//tools:cluster)");
  }
  o->choices.push_back(absl::StrCat("threads: ", o->threads, " per rank (", why, ")"));
}

// This rank's data: its own shard (seed + rank) of the token file, or random batches.
absl::StatusOr<std::unique_ptr<model::BatchSource>> MakeRankSource(const StepOptions& o, int rank) {
  const uint64_t seed = o.seed + static_cast<uint64_t>(rank);
  if (!o.real_data) return model::MakeFixedRandomBatchSource(o.batch, o.seq, o.config.vocab, seed);
  auto file = model::TokenFile::Open(o.data);
  if (!file.ok()) return absl::InvalidArgumentError(absl::StrCat("--data: ", file.status().message()));
  std::shared_ptr<const model::TokenFile> shared(std::move(*file));
  auto src = model::MakeTokenFileBatchSource(shared, o.batch, o.seq, o.config.vocab, seed);
  if (!src.ok()) return absl::InvalidArgumentError(absl::StrCat("--data: ", src.status().message()));
  return src;
}

// Everything a rank builds before training; collective: every rank returns the same status.
absl::Status Build(Setup* s) {
  const int W = g_world->size(), r = g_world->rank();
  if (auto st = CheckFlagsAgree(); !st.ok()) return st;
  absl::Status local = absl::OkStatus();
  auto options = ResolveStepOptions(ReadStepFlags(), sysinfo::ProbeCuda());
  s->grad_accum = absl::GetFlag(FLAGS_grad_accum);
  if (!options.ok()) {
    local = options.status();
  } else if (options->compare_data || options->profile || options->cuda_graph) {
    local = absl::InvalidArgumentError(
        "--compare_data, --profile and --cuda_graph are gpt_step's; ddp_step does not run them (a graph "
        "would have to hold the gradient all-reduce between backward and AdamW)");
  } else if (s->grad_accum < 1) {
    local =
        absl::InvalidArgumentError(absl::StrCat("--grad_accum=", s->grad_accum, " is invalid: must be >= 1"));
  } else if (const double mb = absl::GetFlag(FLAGS_bucket_mb); !(mb >= 1e-6 && mb <= 1e6)) {
    local = absl::InvalidArgumentError(
        absl::StrCat("--bucket_mb=", mb, " is invalid: a bucket size in MB in [0.000001, 1000000]"));
  } else if (g_world->rank() == 0) {
    local = ResolveOutputs(s);  // rank 0 writes them
  }
  if (auto st = AllOk("flags", local); !st.ok()) return st;
  s->o = *options;
  StepOptions& o = s->o;
  if (o.device == "cpu" && o.threads == 0) ChooseThreadsPerRank(&o);
  // Configs that differ across ranks (checked at start).
  if (auto st = CheckSameOnAllRanks(g_world, "configuration", Fingerprint(o, s->grad_accum)); !st.ok())
    return st;
  for (const std::string& c : o.choices) Log0(absl::StrCat("ddp_step: ", c));

  // The all-reducer first: on GPUs it checks that every rank has its own device.
  if (o.device == "cuda") {
    auto red = comm::MakeNcclAllReducer(g_world);
    if (!red.ok()) return red.status();  // every rank has the same error (gathered inside)
    s->reducer = std::move(*red);
  } else {
    s->reducer = comm::MakeMpiAllReducer(g_world);
  }
  if (absl::GetFlag(FLAGS_overlap) && o.device == "cpu") {
    auto ov = comm::OverlappedAllReducer::Make(
        g_world, static_cast<int64_t>(std::llround(absl::GetFlag(FLAGS_bucket_mb) * 1e6)));
    if (auto st = AllOk("--overlap", ov.status()); !st.ok()) return st;
    s->overlap = std::move(*ov);
    Log0(absl::StrFormat(
        "ddp_step: overlap: gradients all-reduced in %g MB buckets during backward, in reverse layer order, on "
        "a communication thread (--overlap=false: one all-reduce after backward)",
        absl::GetFlag(FLAGS_bucket_mb)));
  } else if (o.device == "cpu") {
    Log0("ddp_step: overlap: off (--overlap=false): one all-reduce of every gradient after backward");
  } else {
    Log0("ddp_step: overlap: off on CUDA: NCCL all-reduces the gradients after backward (the CUDA model does not "
         "report gradients during backward)");
  }

  // The model on the rank's own device: on CUDA the GPU the all-reducer bound (the local rank);
  // on the CPU its o.threads threads. The peak is that device's (rank_peak.h): a peak measured
  // now, with the rank's own threads, is used as is; only a whole-machine figure is scaled.
  std::string device_name;
  auto model = MakeModel(o, /*cuda_device=*/g_world->local_rank(), &device_name);
  {
    const sysinfo::CpuInfo cpu = sysinfo::ReadCpuInfo();
    s->machine = o.device == "cuda" ? device_name
                                    : absl::StrCat(cpu.model, " (", cpu.Signature(), ", ", cpu.IsaLevel(), "), ",
                                                   model::CurrentCpuGemmInfo().ToString());
  }
  if (model.ok()) {
    s->model = std::move(*model);
    // The CUDA model's attention, decided now (the cuDNN probe and its start-up check).
    s->attention_choice = model::CudaAttentionChoice(*s->model);
    if (!s->attention_choice.empty()) Log0("ddp_step: " + s->attention_choice);
  } else {
    local = model.status();
  }
  // --cpu_gemm=auto: every rank chooses its GEMM backend per shape at the same moment, with its
  // own threads, as it will train (the rates from --ceilings where the file has them).
  if (local.ok() && o.device == "cpu" && o.cpu_gemm == model::CpuGemmBackend::kAuto) {
    std::string source;
    auto rates = StepGemmRates(o, o.ceilings, &source);
    if (!rates.ok()) {
      local = rates.status();
    } else {
      std::map<std::string, int> on;
      for (const StepGemmRate& r : *rates) ++on[model::CpuGemmBackendName(r.backend)];
      std::string text;
      for (const auto& [name, n] : on) absl::StrAppend(&text, text.empty() ? "" : ", ", n, " on ", name);
      Log0(absl::StrCat("ddp_step: --cpu_gemm=auto: rank 0's ", rates->size(), " GEMM shapes run ", text, " (",
                        source, ")"));
    }
  }
  // Every rank measures its CPU peak at the same moment, as they will train: cores that share
  // FMA units (SMT siblings, a VM's vCPUs on one host core) or a power budget give each rank
  // less together than alone, and together is what the rank's device delivers in training.
  if (auto st = AllOk("model", local); !st.ok()) return st;
  if (local.ok()) {
    auto peak = ChooseRunPeak(o, device_name, o.threads);
    if (!peak.ok()) {
      local = peak.status();
    } else {
      s->peak = peak->peak;
      s->run_peak = *peak;
      s->peak_rule = peak->rule_text;
    }
  }
  if (local.ok()) {
    auto flops =
        accounting::GptStepFlops(model::ToGptShape(o.config), o.seq, o.batch, s->grad_accum, o.convention);
    if (flops.ok())
      s->flops = *flops;
    else
      local = flops.status();
  }
  if (local.ok()) {
    auto src = MakeRankSource(o, r);
    if (src.ok())
      s->source = std::move(*src);
    else
      local = src.status();
  }
  if (local.ok()) {
    s->clock = o.device == "cuda" ? MakeCudaStepClock() : MakeHostStepClock();
    if (s->clock == nullptr) local = absl::InternalError("no CUDA clock in a build without CUDA");
  }
  if (auto st = AllOk("set-up", local); !st.ok()) return st;
  Log0(absl::StrFormat(
      "ddp_step: %d rank(s), %s, %s on %s (B=%d per rank, T=%d, accum=%d); %lld parameters; "
      "gradients averaged with %s",
      W, model::DescribeConfig(o.config), accounting::DtypeName(o.dtype), o.device, o.batch, o.seq,
      s->grad_accum, static_cast<long long>(s->model->num_params()), s->reducer->name()));
  Log0(absl::StrCat("ddp_step: data: ", s->source->Describe(), " (rank r uses seed ", o.seed, " + r)"));
  Log0(absl::StrCat("ddp_step: hosts: ", g_world->num_hosts(), " (", HostsText(), ")",
                    comm::LinkDescription().empty() ? "" : "; link: ", comm::LinkDescription()));
  return absl::OkStatus();
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "%s: error: %s\n", Prefix().c_str(), what.c_str());
  std::fflush(stderr);
  comm::MpiWorld::Abort(1);
}

double ProcessCpuSeconds() {
  timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

model::AdamWConfig AdamWFromOptions(const StepOptions& o) {
  model::AdamWConfig opt;
  opt.lr = static_cast<float>(o.lr);
  opt.weight_decay = static_cast<float>(o.weight_decay);
  opt.beta1 = static_cast<float>(o.beta1);
  opt.beta2 = static_cast<float>(o.beta2);
  return opt;
}

// --test_exit_rank / --test_hang_rank: this rank fails at `step` as the tests ask.
void MaybeFailForTest(int step, int rank) {
  if (step != absl::GetFlag(FLAGS_test_fail_step)) return;
  if (rank == absl::GetFlag(FLAGS_test_exit_rank)) {
    std::fprintf(stderr, "%s: --test_exit_rank: exiting at step %d\n", Prefix().c_str(), step);
    std::fflush(stderr);
    std::_Exit(7);
  }
  if (rank == absl::GetFlag(FLAGS_test_hang_rank)) {
    std::fprintf(stderr, "%s: --test_hang_rank: hanging at step %d\n", Prefix().c_str(), step);
    std::fflush(stderr);
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

// This rank's timed steps: the trainer's times and the process CPU seconds of each.
struct TimedSteps {
  std::vector<DdpStepTimes> times;
  std::vector<double> cpu_s;
};

// Warm-up and timed steps, one line each (rank 0's figures).
TimedSteps Train(Setup* s) {
  const StepOptions& o = s->o;
  const int r = g_world->rank();
  DdpTrainer trainer(g_world, s->model.get(), s->reducer.get(), s->clock.get(), s->grad_accum,
                     AdamWFromOptions(o), s->overlap.get());
  if (auto st = trainer.BroadcastParams(); !st.ok()) Die(std::string(st.message()));
  auto next = [&](model::Batch* b) { return s->source->Next(b); };
  TimedSteps timed;
  const int total_steps = o.warmup_steps + o.steps;
  for (int i = 1; i <= total_steps; ++i) {
    MaybeFailForTest(i, r);
    const double cpu0 = ProcessCpuSeconds();
    auto t = trainer.Step(next);
    const double cpu = ProcessCpuSeconds() - cpu0;
    if (!t.ok()) Die(absl::StrCat("in step ", i, ": ", t.status().message()));
    const bool warm = i <= o.warmup_steps;
    if (!warm) {
      timed.times.push_back(*t);
      timed.cpu_s.push_back(cpu);
    }
    auto mfu = PerRankMfu(s->flops.model_flops_per_step, t->total(), s->peak.flops_per_s);
    Log0(absl::StrFormat(
        "step %3d/%-3d %-7s | rank 0: loss %.4f | %9.2f ms | comm exposed %8.2f ms (%4.1f%%) of %8.2f ms | "
        "mfu %s",
        warm ? i : i - o.warmup_steps, warm ? o.warmup_steps : o.steps, warm ? "warm-up" : "timed", t->loss,
        t->total() * 1e3, t->comm * 1e3, 100 * t->comm / t->total(), t->comm_total * 1e3,
        mfu.ok() ? accounting::FormatPercent(*mfu) : "n/a"));
  }
  return timed;
}

// Every rank's figures over its timed steps, gathered on every rank (index: rank).
struct RankFigures {
  SeriesStats st;  // this rank's step times
  std::vector<double> mfus, steps_med, comm_med, comm_share, tps, sums, hashes, losses, peaks;
  std::vector<double> comm_total_med, local_ranks;  // all-reduce time incl. overlapped; MPI local rank
  std::vector<std::string> machines;  // each rank's CPU / GPU and GEMM library
  std::vector<double> probe_before, probe_after;  // 0: not probed (a figure from a flag or file)
  bool identical = false;  // parameters identical on every rank after the last step
  accounting::Disturbance disturbance;  // any rank's, each reason prefixed "rank q: "
};

RankFigures GatherRankFigures(const Setup& s, const TimedSteps& timed) {
  const int W = g_world->size();
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
                                    static_cast<double>(g_world->local_rank())};
  const int kF = static_cast<int>(mine.size());
  auto all = g_world->AllgatherDoubles(mine);
  if (!all.ok()) Die(std::string(all.status().message()));
  auto field = [&](int k) {
    std::vector<double> v(W);
    for (int q = 0; q < W; ++q) v[q] = (*all)[q * kF + k];
    return v;
  };
  f.mfus = field(0), f.steps_med = field(1), f.comm_med = field(2), f.comm_share = field(3), f.tps = field(4);
  f.sums = field(5), f.hashes = field(6), f.losses = field(7), f.peaks = field(8);
  f.probe_before = field(9), f.probe_after = field(10);
  f.comm_total_med = field(11), f.local_ranks = field(12);
  auto machines = g_world->AllgatherStrings(s.machine);
  if (!machines.ok()) Die(std::string(machines.status().message()));
  f.machines = std::move(*machines);
  // Per rank: its MFU above 103%, or its peak probes more than 10% apart (accounting/disturbed.h).
  std::vector<std::string> why;
  for (int q = 0; q < W; ++q) {
    accounting::PeakProbes p;
    p.before = f.probe_before[q];
    p.after = f.probe_after[q];
    const accounting::Disturbance d = accounting::JudgeDisturbance(
        {{"MFU", s.flops.model_flops_per_step * f.st.n / std::max(f.sums[q], 1e-30), f.peaks[q]}}, p);
    if (d.disturbed) why.push_back(absl::StrCat("rank ", q, ": ", d.reason));
  }
  f.disturbance.disturbed = !why.empty();
  f.disturbance.reason = absl::StrJoin(why, "; ");
  f.identical =
      std::all_of(f.hashes.begin(), f.hashes.end(), [&](double h) { return h == f.hashes[0] && h >= 0; });
  return f;
}

// Every rank's time of every timed step, gathered on every rank: [rank][step].
struct StepMatrix {
  std::vector<std::vector<double>> total, comm, cpu;
};

StepMatrix GatherStepMatrix(const TimedSteps& timed) {
  const int W = g_world->size(), n = static_cast<int>(timed.times.size());
  std::vector<double> mine;
  for (int i = 0; i < n; ++i) {
    mine.insert(mine.end(), {timed.times[i].total(), timed.times[i].comm, timed.cpu_s[i]});
  }
  auto all = g_world->AllgatherDoubles(mine);
  if (!all.ok()) Die(std::string(all.status().message()));
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

std::string CaseName(const Setup& s) {
  return absl::StrCat("BM_DdpStep/", s.o.CaseName(), "/ranks:", g_world->size(), "/accum:", s.grad_accum);
}

void LogRankTable(const Setup& s, const RankFigures& f) {
  Log0(absl::StrCat("\n== per-rank figures: ", CaseName(s), ", ", f.st.n, " timed steps after ",
                    s.o.warmup_steps, " warm-up",
                    f.disturbance.disturbed ? absl::StrCat(" | DISTURBED: ", f.disturbance.reason) : ""));
  Log0(absl::StrFormat("%4s %-12s %5s %11s %12s %11s %9s %12s %9s %12s %8s", "rank", "host", "local", "step ms",
                       "exposed ms", "comm ms", "exposed", "tokens/s", "loss", "peak GFLOP/s", "MFU"));
  bool differ = false;
  for (int q = 0; q < g_world->size(); ++q) {
    const bool other_machine = f.machines[q] != f.machines[0];
    differ = differ || other_machine;
    Log0(absl::StrFormat("%4d %-12s %5d %11.3f %12.3f %11.3f %8.1f%% %12.1f %9.4f %12.1f %8s%s", q,
                         g_world->hosts()[q], static_cast<int>(f.local_ranks[q]), f.steps_med[q] * 1e3,
                         f.comm_med[q] * 1e3, f.comm_total_med[q] * 1e3, 100 * f.comm_share[q], f.tps[q],
                         f.losses[q], f.peaks[q] / 1e9, accounting::FormatPercent(f.mfus[q]),
                         other_machine ? "  *" : ""));
  }
  Log0("(exposed: the all-reduce time the step waited for; comm: all of it, overlapped with backward or not;\n"
       " local: the rank on its host; each rank's MFU is over its own host's peak, column 'peak')");
  if (differ) {
    Log0(absl::StrCat("* this rank's machine differs from rank 0's (", f.machines[0],
                      "): its MFU is over its own peak, but the job runs at its slowest rank's pace"));
    for (int q = 1; q < g_world->size(); ++q) {
      if (f.machines[q] != f.machines[0]) Log0(absl::StrCat("  rank ", q, " (", g_world->hosts()[q], "): ", f.machines[q]));
    }
  } else {
    Log0(absl::StrCat("machine       every rank: ", f.machines[0]));
  }
}

// The gradient all-reduce's size and bandwidth (nccl-tests' definitions), from the ranks'
// median total all-reduce time per step.
struct CommFigures {
  double bytes = 0, total_s = 0, exposed_s = 0, exposed_share = 0, algbw = 0, busbw = 0, link_bps = 0;
};

CommFigures CommOf(const Setup& s, const RankFigures& f) {
  CommFigures c;
  c.bytes = 4.0 * static_cast<double>(s.model->num_params());
  auto total = SummariseRanks(f.comm_total_med);
  auto exposed = SummariseRanks(f.comm_med);
  auto share = SummariseRanks(f.comm_share);
  if (total.ok()) c.total_s = total->median;
  if (exposed.ok()) c.exposed_s = exposed->median;
  if (share.ok()) c.exposed_share = share->median;
  if (auto bw = accounting::AllreduceBandwidth(static_cast<int64_t>(c.bytes), c.total_s, g_world->size());
      bw.ok() && g_world->size() > 1) {
    c.algbw = bw->algbw;
    c.busbw = bw->busbw;
  }
  c.link_bps = comm::LinkRateBps();
  return c;
}

// MFU and all-reduce share across ranks; what the MFU divides.
void LogRankSummary(const Setup& s, const RankFigures& f) {
  const int W = g_world->size();
  const double local_flops = s.flops.model_flops_per_step;
  auto sm = SummariseRanks(f.mfus);
  auto scs = SummariseRanks(f.comm_share);
  auto scm = SummariseRanks(f.comm_med);
  if (sm.ok()) {
    Log0(absl::StrFormat("MFU per rank  min %s (rank %d) | median %s | max %s (rank %d) | mean %s",
                         accounting::FormatPercent(sm->min), sm->argmin,
                         accounting::FormatPercent(sm->median), accounting::FormatPercent(sm->max),
                         sm->argmax, accounting::FormatPercent(sm->mean)));
  }
  const CommFigures c = CommOf(s, f);
  if (W > 1) {
    std::string link;
    if (c.link_bps > 0) {
      link = absl::StrFormat("; busbw is %.0f%% of the %.3g Gbit/s link", 100 * c.busbw * 8 / c.link_bps,
                             c.link_bps / 1e9);
    }
    Log0(absl::StrFormat(
        "comm          all-reduce of %.4g MB of fp32 gradients per step, %s: %.3f ms (ranks' median), algbw "
        "%.3f GB/s, busbw %.3f GB/s (nccl-tests: algbw = bytes / time, busbw = algbw x 2(n-1)/n)%s",
        c.bytes / 1e6, s.overlap ? "in buckets overlapped with backward" : "after backward",
        c.total_s * 1e3, c.algbw / 1e9, c.busbw / 1e9, link));
  }
  if (scs.ok() && scm.ok()) {
    Log0(absl::StrFormat(
        "lost to communication (exposed): %.3f ms per step (ranks' median; max %.3f ms) = %.1f%% of the step "
        "(min %.1f%% | median %.1f%% | max %.1f%% | mean %.1f%%)%s",
        scm->median * 1e3, scm->max * 1e3, 100 * scs->median, 100 * scs->min, 100 * scs->median, 100 * scs->max,
        100 * scs->mean,
        s.overlap ? absl::StrFormat("; %.1f%% of the all-reduce time hidden under backward",
                                    c.total_s > 0 ? 100 * std::max(0.0, 1 - c.exposed_s / c.total_s) : 0.0)
                  : " (no overlap: all of it)"));
    Log0("              (the all-reduce time includes waiting for slower ranks)");
  }
  Log0(absl::StrFormat(
      "numerator     LOCAL work per rank: B=%d x accum=%d x T=%d tokens x %.4g FLOPs/token "
      "(%s) = %.4g FLOPs per step",
      s.o.batch, s.grad_accum, s.o.seq, s.flops.model_flops_per_token, s.flops.Describe(), local_flops));
  Log0(absl::StrFormat(
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
    Log0(absl::StrCat("peak probes   GFLOP/s before -> after the steps, the best taken: ", probes));
  }
  auto inflated = InflatedMfu(local_flops * f.st.n, W, f.sums[0], s.peak.flops_per_s);
  auto deflated = DeflatedMfu(local_flops * f.st.n, W, f.sums[0], s.peak.flops_per_s);
  if (W > 1 && inflated.ok() && deflated.ok()) {
    Log0(absl::StrFormat(
        "not used      rank 0's global work / one peak = %s (x%d too high); local work / all %d "
        "peaks = %s (/%d too low)",
        accounting::FormatPercent(*inflated), W, W, accounting::FormatPercent(*deflated), W));
  }
}

// Tokens/s of the whole job, the scaling against a 1-rank run, and whether the ranks agree.
void LogThroughputAndScaling(const Setup& s, const RankFigures& f) {
  const int W = g_world->size();
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
  if (tp.ok()) Log0(absl::StrCat("tokens/s      ", tp->ToString()));
  if (W == 1) {
    Log0(
        absl::StrFormat("baseline      1 rank: this is the non-DDP MFU (%s); give --baseline_mfu=%.6f to an "
                        "N-rank run of the same config for its scaling loss",
                        accounting::FormatPercent(f.mfus[0]), f.mfus[0]));
  }
  const double baseline = absl::GetFlag(FLAGS_baseline_mfu);
  auto sm = SummariseRanks(f.mfus);
  if (baseline > 0 && sm.ok()) {
    auto ratio = ScalingRatio(sm->mean, baseline);
    if (ratio.ok()) {
      Log0(absl::StrFormat("scaling       mean MFU at %d ranks %s vs 1 rank %s: %.3f (scaling loss %.1f%%)",
                           W, accounting::FormatPercent(sm->mean), accounting::FormatPercent(baseline),
                           *ratio, 100 * (1 - *ratio)));
    }
  }
  Log0(f.identical ? "parameters    identical on every rank after the last step (hash of the bytes)"
                   : "parameters    DIFFER across ranks after the last step: the all-reduce or the data "
                     "split is wrong");
}

// --json_out: the per-rank figures.
// The attention that ran, as gpt_step's JSON context records it (attention_choice.h).
void AddAttentionRecord(const Setup& s, nlohmann::json* j) {
  (*j)["mlbench_attention_impl"] = model::cuda::AttentionImplRecord(s.attention_choice);
  (*j)["mlbench_attention_choice"] =
      s.attention_choice.empty() ? "the CPU model's attention (no choice)" : s.attention_choice;
}

nlohmann::json RankJson(const Setup& s, const RankFigures& f) {
  const int W = g_world->size();
  const StepOptions& o = s.o;
  nlohmann::json j;
  j["case"] = CaseName(s);
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
  j["hosts"] = g_world->num_hosts();
  j["link"] = comm::LinkDescription();
  const CommFigures c = CommOf(s, f);
  j["overlap"] = s.overlap != nullptr;
  j["bucket_mb"] = s.overlap != nullptr ? absl::GetFlag(FLAGS_bucket_mb) : 0.0;
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
                             {"host", g_world->hosts()[q]},
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

std::string g_executable = "ddp_step";

// --benchmark_out: one Google Benchmark iteration entry per timed step (harness/benchmark_json.h).
// real_time is the slowest rank's step, cpu_time the largest process CPU time of a rank (all its
// threads) in that step; the counters are over the ranks; verified = parameters identical.
absl::StatusOr<nlohmann::json> BenchmarkJsonOf(const Setup& s, const RankFigures& f, const StepMatrix& m) {
  const int W = g_world->size();
  const int n = m.total.empty() ? 0 : static_cast<int>(m.total[0].size());
  const double global_tokens = static_cast<double>(W) * s.o.tokens_per_step() * s.grad_accum;
  std::vector<harness::BenchmarkEntry> entries;
  for (int i = 0; i < n; ++i) {
    harness::BenchmarkEntry e;
    e.name = CaseName(s);
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
  nlohmann::json context = harness::BenchmarkContext(g_executable);
  context["mlbench_ddp_allreduce"] = s.reducer->name();
  context["mlbench_ddp_peak_source"] = s.peak.source;
  AddAttentionRecord(s, &context);
  return harness::BenchmarkJson(context, entries);
}

// Rank 0 writes the files asked for; false when one could not be written.
bool WriteOutputs(const Setup& s, const RankFigures& f, const StepMatrix& m) {
  bool ok = true;
  if (const std::string& path = s.json_out; !path.empty()) {
    if (auto st = harness::WriteJsonFile("--json_out", path, RankJson(s, f)); !st.ok()) {
      std::fprintf(stderr, "ddp_step: error: %s\n", std::string(st.message()).c_str());
      ok = false;
    } else {
      Log0(absl::StrCat("json          ", path));
    }
  }
  if (const std::string& path = s.benchmark_out; !path.empty()) {
    absl::StatusOr<nlohmann::json> j = BenchmarkJsonOf(s, f, m);
    absl::Status st = j.ok() ? harness::WriteJsonFile("--benchmark_out", path, *j) : j.status();
    if (!st.ok()) {
      std::fprintf(stderr, "ddp_step: error: %s\n", std::string(st.message()).c_str());
      ok = false;
    } else {
      Log0(absl::StrCat("benchmark     ", path, " (Google Benchmark JSON, one entry per timed step)"));
    }
  }
  return ok;
}

int Run() {
  Setup s;
  if (auto st = Build(&s); !st.ok()) {
    Log0(absl::StrCat("ddp_step: error: ", st.message()));
    return harness::Fail(Prefix(), st);
  }
  const TimedSteps timed = Train(&s);
  // Every rank probes its peak again, at the same moment as at start-up (after the last step):
  // the rank divides by the best of its two probes (rank_peak.h ProbeAgain).
  if (auto probed = ProbeAgain(s.run_peak); probed.ok()) {
    s.peak = probed->peak;
    s.probes = probed->probes;
  } else {
    std::fprintf(stderr, "%s: warning: %s; the start-up peak stays\n", Prefix().c_str(),
                 std::string(probed.status().message()).c_str());
  }
  const RankFigures f = GatherRankFigures(s, timed);
  const StepMatrix m = GatherStepMatrix(timed);
  int rc = f.identical ? 0 : 1;
  if (g_world->rank() == 0) {
    LogRankTable(s, f);
    LogRankSummary(s, f);
    LogThroughputAndScaling(s, f);
    if (!WriteOutputs(s, f, m)) rc = harness::kExitFailure;  // a failed write (a full disk): exit 2
  }
  return rc;
}

constexpr char kUsage[] =
    "ddp_step: data-parallel GPT-2 training with per-rank MFU.\n"
    "  mpirun -np N ddp_step [gpt_step's flags] [--grad_accum=A] [--baseline_mfu=X]\n"
    "         [--json_out=FILE] [--benchmark_out=FILE]\n"
    "  bazel run //macro:ddp_step_mpirun -- -np N [flags]\n"
    "Rank 0 prints each step and the per-rank table: MFU per rank (local work over one device's\n"
    "peak), all-reduce time and share, tokens/s. --benchmark_out writes Google Benchmark JSON\n"
    "(tools/gate and compare.py read it).\n"
    "A rank measuring its peak at start-up probes it again after the steps and divides by the best;\n"
    "a rank whose MFU exceeds 103% or whose probes differ by more than 10% makes the run DISTURBED\n"
    "(the table's first line says why; --benchmark_out: disturbed=1, refused by tools/gate).\n"
    "MLBENCH_TEST_AFTER_PROBE_SCALE=X (environment, tests) multiplies the after-probe by X.\n"
    "--dtype=bf16 on the CPU: gpt_step's mixed precision (see its --help), each rank against its\n"
    "own measured bf16 peak; MLBENCH_TEST_REFUSE_AMX=1 (tests) simulates the kernel refusing AMX.\n"
    "Every rank must be given the same flags (all but --threads and --timeout_s; --json_out and\n"
    "--benchmark_out, which rank 0 writes, to every rank or to none), else every rank stops at start.\n"
    "Across hosts: //tools:cluster (namespaces) or mpirun --hostfile; each rank's host and local rank\n"
    "are in the table and the JSON; --overlap (default) all-reduces the gradients in --bucket_mb\n"
    "buckets during backward and the summary splits the all-reduce time into total and exposed.\n"
    "Exit status: 0 success; 1 command line not understood, or parameters differ across ranks;\n"
    "2 bad input (the message names the flag), flags that differ across ranks, or an output file\n"
    "could not be written (a full disk: the path and the reason; a previous file is kept);\n"
    "5 a rank waited longer than --timeout_s for the others (one died or hung).";

// --timeout_s is needed before MPI is up: read from argv by hand (the rest is parsed after).
absl::StatusOr<double> TimeoutFromArgv(int argc, char** argv) {
  double timeout_s = 120;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--timeout_s=", 0) != 0) continue;
    const char* text = a.c_str() + 12;
    char* end = nullptr;
    timeout_s = std::strtod(text, &end);
    // NaN would disarm every comparison of the watchdog; garbage would read as 0 (no timeout).
    if (end == text || *end != '\0' || !std::isfinite(timeout_s)) {
      return absl::InvalidArgumentError(absl::StrCat("--timeout_s=", text,
                                                     " is not a finite number of seconds "
                                                     "(allowed: > 0, or <= 0 for no timeout)"));
    }
  }
  return timeout_s;
}

}  // namespace
}  // namespace macro

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(macro::kUsage);
  if (harness::WantsHelp(argc, argv)) {
    harness::PrintFlagsHelp(macro::kUsage);
    return 0;
  }
  macro::g_executable = argv[0];
  absl::StatusOr<double> timeout_s = macro::TimeoutFromArgv(argc, argv);
  if (!timeout_s.ok()) {
    return harness::Fail("ddp_step", timeout_s.status());
  }
  auto world = comm::MpiWorld::Init(&argc, &argv, *timeout_s);
  if (!world.ok()) {
    return harness::Fail("ddp_step", world.status());
  }
  macro::g_world = *world;
  absl::ParseCommandLine(argc, argv);
  (*world)->set_timeout_s(absl::GetFlag(FLAGS_timeout_s));
  int rc = macro::Run();
  comm::MpiWorld::Finalize();
  return rc;
}
