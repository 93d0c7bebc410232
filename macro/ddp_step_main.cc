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
// This file: the flags, the training loop and main; the set-up is ddp_setup.h's, the gathered
// figures ddp_figures.h's, the report and the files ddp_report.h's.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/mfu.h"
#include "comm/mpi_world.h"
#include "harness/exit_codes.h"
#include "harness/fail.h"
#include "harness/flags_main.h"
#include "macro/ddp_accounting.h"
#include "macro/ddp_figures.h"
#include "macro/ddp_report.h"
#include "macro/ddp_setup.h"
#include "macro/ddp_trainer.h"
#include "macro/rank_peak.h"
#include "macro/step_options.h"

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

std::string Prefix() { return absl::StrCat("ddp_step: rank ", g_world ? g_world->rank() : 0); }

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

// Warm-up and timed steps, one line each (rank 0's figures).
TimedSteps Train(DdpSetup* s) {
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
    Log0(g_world, absl::StrFormat(
        "step %3d/%-3d %-7s | rank 0: loss %.4f | %9.2f ms | comm exposed %8.2f ms (%4.1f%%) of %8.2f ms | "
        "mfu %s",
        warm ? i : i - o.warmup_steps, warm ? o.warmup_steps : o.steps, warm ? "warm-up" : "timed", t->loss,
        t->total() * 1e3, t->comm * 1e3, 100 * t->comm / t->total(), t->comm_total * 1e3,
        mfu.ok() ? accounting::FormatPercent(*mfu) : "n/a"));
  }
  return timed;
}

// Whether the command line names FLAG (--FLAG=V, --FLAG V, -FLAG=V or -FLAG V).
bool GivenInArgv(int argc, char** argv, const std::string& flag) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") break;
    for (const std::string& p : {"--" + flag, "-" + flag}) {
      if (a == p || a.rfind(p + "=", 0) == 0) return true;
    }
  }
  return false;
}

// The flags of ddp_step's own, as given (macro/ddp_setup.h).
DdpFlags ReadDdpFlags(bool bucket_mb_given) {
  DdpFlags f;
  f.grad_accum = absl::GetFlag(FLAGS_grad_accum);
  f.overlap = absl::GetFlag(FLAGS_overlap);
  f.bucket_mb = absl::GetFlag(FLAGS_bucket_mb);
  f.bucket_mb_given = bucket_mb_given;
  f.json_out = absl::GetFlag(FLAGS_json_out);
  f.benchmark_out = absl::GetFlag(FLAGS_benchmark_out);
  return f;
}

int Run(const std::string& executable, bool bucket_mb_given) {
  DdpSetup s;
  if (auto st = BuildDdpSetup(g_world, ReadDdpFlags(bucket_mb_given), &s); !st.ok()) {
    Log0(g_world, absl::StrCat("ddp_step: error: ", st.message()));
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
  absl::StatusOr<RankFigures> f = GatherRankFigures(s, timed);
  if (!f.ok()) Die(std::string(f.status().message()));
  absl::StatusOr<StepMatrix> m = GatherStepMatrix(g_world, timed);
  if (!m.ok()) Die(std::string(m.status().message()));
  int rc = f->identical ? 0 : 1;
  if (g_world->rank() == 0) {
    LogRankTable(s, *f);
    LogRankSummary(s, *f);
    LogThroughputAndScaling(s, *f, absl::GetFlag(FLAGS_baseline_mfu));
    if (!WriteOutputs(s, *f, *m, executable)) rc = harness::kExitFailure;  // a failed write (a full disk): exit 2
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
    "a rank whose MFU exceeds 103%, whose probes differ by more than 10% or whose best probe is more\n"
    "than 15% below this machine's record (see gpt_step --help) makes the run DISTURBED\n"
    "(the table's first line says why; --benchmark_out: disturbed=1, refused by tools/gate).\n"
    "MLBENCH_TEST_AFTER_PROBE_SCALE=X (environment, tests) multiplies the after-probe by X.\n"
    "--dtype=bf16 on the CPU: gpt_step's mixed precision (see its --help), each rank against its\n"
    "own measured bf16 peak; MLBENCH_TEST_REFUSE_AMX=1 (tests) simulates the kernel refusing AMX.\n"
    "Every rank must be given the same flags (all but --threads and --timeout_s; --json_out and\n"
    "--benchmark_out, which rank 0 writes, to every rank or to none), else every rank stops at start.\n"
    "Across hosts: //tools:cluster (namespaces) or mpirun --hostfile; each rank's host and local rank\n"
    "are in the table and the JSON; --overlap (default) all-reduces the gradients in --bucket_mb\n"
    "buckets during backward and the summary splits the all-reduce time into total and exposed\n"
    "(--bucket_mb with --overlap=false, or on CUDA, which has no buckets, is refused).\n"
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
  absl::StatusOr<double> timeout_s = macro::TimeoutFromArgv(argc, argv);
  if (!timeout_s.ok()) {
    return harness::Fail("ddp_step", timeout_s.status());
  }
  auto world = comm::MpiWorld::Init(&argc, &argv, *timeout_s);
  if (!world.ok()) {
    return harness::Fail("ddp_step", world.status());
  }
  macro::g_world = *world;
  const bool bucket_mb_given = macro::GivenInArgv(argc, argv, "bucket_mb");
  absl::ParseCommandLine(argc, argv);
  (*world)->set_timeout_s(absl::GetFlag(FLAGS_timeout_s));
  int rc = macro::Run(argv[0], bucket_mb_given);
  comm::MpiWorld::Finalize();
  return rc;
}
