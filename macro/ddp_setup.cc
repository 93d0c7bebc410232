// BuildDdpSetup and its parts (ddp_setup.h).
#include "macro/ddp_setup.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "comm/cluster_link.h"
#include "harness/atomic_file.h"
#include "harness/user_path.h"
#include "macro/ddp_accounting.h"
#include "macro/gpt_session.h"
#include "macro/make_model.h"
#include "macro/rank_flags.h"
#include "macro/step_flags.h"
#include "model/cuda/cuda_model.h"
#include "model/data/token_file.h"
#include "model/gemm_info.h"
#include "model/gpt_config.h"
#include "sysinfo/cpu_info.h"
#include "sysinfo/cuda_info.h"

namespace macro {
namespace {

// CPUs this process may run on (its affinity mask); 0 when unknown.
int AffinityCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
  return CPU_COUNT(&set);
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
absl::Status CheckFlagsAgree(comm::MpiWorld* world) {
  absl::StatusOr<std::string> mine = RankAgreementLines(RankOwnFlags());
  if (auto st = AllOk(world, "flags", mine.status()); !st.ok()) return st;
  auto all = world->AllgatherStrings(*mine);
  if (!all.ok()) return all.status();
  std::vector<std::string> differ;
  for (int r = 1; r < world->size(); ++r) {
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
std::string Fingerprint(const StepOptions& o, const DdpFlags& flags) {
  return absl::StrCat(model::DescribeConfig(o.config), " ", o.CaseName(), " accum=", flags.grad_accum,
                      " warmup=", o.warmup_steps, " steps=", o.steps, " seed=", o.seed,
                      " real_data=", o.real_data, " data=", o.data,
                      " attention=", accounting::ConventionName(o.convention),
                      absl::StrFormat(" lr=%g wd=%g b1=%g b2=%g peak=%g", o.lr, o.weight_decay, o.beta1,
                                      o.beta2, o.peak_flops),
                      " ceilings=", o.ceilings, " overlap=", flags.overlap, " bucket_mb=", flags.bucket_mb);
}

// "host0: ranks 0, 1; host1: ranks 2, 3".
std::string HostsText(const comm::MpiWorld* world) {
  std::map<std::string, std::vector<int>> ranks;
  std::vector<std::string> order;
  for (int q = 0; q < world->size(); ++q) {
    const std::string& h = world->hosts()[q];
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

// --json_out and --benchmark_out, resolved against the user's folder and checked writable before
// the run: an unwritable path is an error now, not after the training steps.
absl::Status ResolveOutputs(const DdpFlags& flags, DdpSetup* s) {
  for (const auto& [flag, value, dest] : {std::tuple{"--json_out", flags.json_out, &s->json_out},
                                          std::tuple{"--benchmark_out", flags.benchmark_out, &s->benchmark_out}}) {
    *dest = harness::UserPath(value);
    if (dest->empty()) continue;
    if (absl::Status w = harness::CheckWritable(*dest); !w.ok())
      return absl::Status(w.code(), absl::StrCat(flag, ": ", w.message()));
  }
  return harness::CheckDistinctOutputs({{"--json_out", s->json_out}, {"--benchmark_out", s->benchmark_out}});
}

// CPU threads per rank when --threads is not given: the node's cores shared among its ranks,
// no more than the CPUs the rank is bound to. Recorded in o->choices.
void ChooseThreadsPerRank(const comm::MpiWorld* world, StepOptions* o) {
  sysinfo::CpuInfo cpu = sysinfo::ReadCpuInfo();
  int cores = cpu.physical_cores > 0 ? cpu.physical_cores : std::max(1, cpu.logical_cpus);
  o->threads = std::max(1, cores / world->local_size());
  std::string why = absl::StrCat(cores, " cores / ", world->local_size(), " ranks on this node");
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

// The flags, resolved and checked on every rank; collective.
absl::Status ResolveRankOptions(comm::MpiWorld* world, const DdpFlags& flags, DdpSetup* s) {
  if (auto st = CheckFlagsAgree(world); !st.ok()) return st;
  absl::Status local = absl::OkStatus();
  auto options = ResolveStepOptions(ReadStepFlags(), sysinfo::ProbeCuda());
  s->grad_accum = flags.grad_accum;
  const double mb = flags.bucket_mb;
  if (!options.ok()) {
    local = options.status();
  } else if (options->compare_data || options->profile || options->cuda_graph) {
    local = absl::InvalidArgumentError(
        "--compare_data, --profile and --cuda_graph are gpt_step's; ddp_step does not run them (a graph "
        "would have to hold the gradient all-reduce between backward and AdamW)");
  } else if (options->recompute_all) {
    local = absl::InvalidArgumentError(
        "--recompute=all is gpt_step's (every level back to back); ddp_step runs one level: none, gelu or "
        "swiglu, attention or block");
  } else if (s->grad_accum < 1) {
    local =
        absl::InvalidArgumentError(absl::StrCat("--grad_accum=", s->grad_accum, " is invalid: must be >= 1"));
  } else if (!(mb >= 1e-6 && mb <= 1e6)) {
    local = absl::InvalidArgumentError(
        absl::StrCat("--bucket_mb=", mb, " is invalid: a bucket size in MB in [0.000001, 1000000]"));
  } else if (flags.bucket_mb_given && !flags.overlap) {
    local = absl::InvalidArgumentError(absl::StrCat(
        "--bucket_mb=", mb, " has no effect with --overlap=false: it sizes --overlap's buckets, and without "
        "them every gradient is all-reduced at once after backward (drop --bucket_mb, or --overlap=true)"));
  } else if (flags.bucket_mb_given && options->device == "cuda") {
    local = absl::InvalidArgumentError(absl::StrCat(
        "--bucket_mb=", mb, " has no effect on CUDA: NCCL all-reduces every gradient after backward, without "
        "buckets (the CUDA model does not report gradients during backward); drop --bucket_mb"));
  } else if (world->rank() == 0) {
    local = ResolveOutputs(flags, s);  // rank 0 writes them
  }
  if (auto st = AllOk(world, "flags", local); !st.ok()) return st;
  s->o = *options;
  if (s->o.device == "cpu" && s->o.threads == 0) ChooseThreadsPerRank(world, &s->o);
  // Configs that differ across ranks (checked at start).
  return CheckSameOnAllRanks(world, "configuration", Fingerprint(s->o, flags));
}

// The gradient all-reducer (on GPUs it checks that every rank has its own device first), and
// --overlap's buckets on the CPU; collective.
absl::Status MakeAllReducers(comm::MpiWorld* world, const DdpFlags& flags, DdpSetup* s) {
  if (s->o.device == "cuda") {
    auto red = comm::MakeNcclAllReducer(world);
    if (!red.ok()) return red.status();  // every rank has the same error (gathered inside)
    s->reducer = std::move(*red);
  } else {
    s->reducer = comm::MakeMpiAllReducer(world);
  }
  if (flags.overlap && s->o.device == "cpu") {
    auto ov = comm::OverlappedAllReducer::Make(world, static_cast<int64_t>(std::llround(flags.bucket_mb * 1e6)));
    if (auto st = AllOk(world, "--overlap", ov.status()); !st.ok()) return st;
    s->overlap = std::move(*ov);
    s->bucket_mb = flags.bucket_mb;
    Log0(world, absl::StrFormat("ddp_step: overlap: gradients all-reduced in %g MB buckets during backward, in "
                                "reverse layer order, on a communication thread (--overlap=false: one "
                                "all-reduce after backward)",
                                flags.bucket_mb));
  } else if (s->o.device == "cpu") {
    Log0(world, "ddp_step: overlap: off (--overlap=false): one all-reduce of every gradient after backward");
  } else {
    Log0(world, "ddp_step: overlap: off on CUDA: NCCL all-reduces the gradients after backward (the CUDA model "
                "does not report gradients during backward)");
  }
  return absl::OkStatus();
}

// The model on the rank's own device: on CUDA the GPU the all-reducer bound (the local rank); on
// the CPU its o.threads threads; and with --cpu_gemm=auto every rank's GEMM choice, made at the
// same moment with its own threads, as it will train. This rank's error, if any (not collective).
absl::Status BuildModel(comm::MpiWorld* world, DdpSetup* s, std::string* device_name) {
  const StepOptions& o = s->o;
  auto model = MakeModel(o, /*cuda_device=*/world->local_rank(), device_name);
  const sysinfo::CpuInfo cpu = sysinfo::ReadCpuInfo();
  s->machine = o.device == "cuda" ? *device_name
                                  : absl::StrCat(cpu.model, " (", cpu.Signature(), ", ", cpu.IsaLevel(), "), ",
                                                 model::CurrentCpuGemmInfo().ToString());
  if (!model.ok()) return model.status();
  s->model = std::move(*model);
  // The CUDA model's attention, decided now (the cuDNN probe and its start-up check).
  s->attention_choice = model::CudaAttentionChoice(*s->model);
  if (!s->attention_choice.empty()) Log0(world, "ddp_step: " + s->attention_choice);
  if (o.device != "cpu" || o.cpu_gemm != model::CpuGemmBackend::kAuto) return absl::OkStatus();
  std::string source;
  auto rates = StepGemmRates(o, o.ceilings, &source);
  if (!rates.ok()) return rates.status();
  std::map<std::string, int> on;
  for (const StepGemmRate& r : *rates) ++on[model::CpuGemmBackendName(r.backend)];
  std::string text;
  for (const auto& [name, n] : on) absl::StrAppend(&text, text.empty() ? "" : ", ", n, " on ", name);
  Log0(world, absl::StrCat("ddp_step: --cpu_gemm=auto: rank 0's ", rates->size(), " GEMM shapes run ", text,
                           " (", source, ")"));
  return absl::OkStatus();
}

// The peak of the rank's device (rank_peak.h: a peak measured now, with the rank's own threads,
// is used as is; only a whole-machine figure is scaled), the FLOPs of its local work, its data
// shard and its step clock. This rank's error, if any (not collective).
absl::Status BuildPeakDataAndClock(comm::MpiWorld* world, const std::string& device_name, DdpSetup* s) {
  const StepOptions& o = s->o;
  auto peak = ChooseRunPeak(o, device_name, o.threads);
  if (!peak.ok()) return peak.status();
  s->peak = peak->peak;
  s->run_peak = *peak;
  s->peak_rule = peak->rule_text;
  auto flops = accounting::GptStepFlops(model::ToGptShape(o.config), o.seq, o.batch, s->grad_accum, o.convention,
                                          o.recompute);
  if (!flops.ok()) return flops.status();
  s->flops = *flops;
  auto src = MakeRankSource(o, world->rank());
  if (!src.ok()) return src.status();
  s->source = std::move(*src);
  s->clock = o.device == "cuda" ? MakeCudaStepClock() : MakeHostStepClock();
  if (s->clock == nullptr) return absl::InternalError("no CUDA clock in a build without CUDA");
  return absl::OkStatus();
}

}  // namespace

void Log0(const comm::MpiWorld* world, const std::string& s) {
  if (world != nullptr && world->rank() != 0) return;
  std::fputs(s.c_str(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

absl::Status AllOk(comm::MpiWorld* world, const std::string& stage, const absl::Status& local) {
  auto all = world->AllgatherStrings(local.ok() ? "" : std::string(local.message()));
  if (!all.ok()) return all.status();
  std::string msg;
  for (int r = 0; r < world->size(); ++r) {
    if (!(*all)[r].empty()) absl::StrAppend(&msg, msg.empty() ? "" : "; ", "rank ", r, ": ", (*all)[r]);
  }
  if (msg.empty()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(stage, ": ", msg));
}

absl::Status BuildDdpSetup(comm::MpiWorld* world, const DdpFlags& flags, DdpSetup* s) {
  s->world = world;
  if (auto st = ResolveRankOptions(world, flags, s); !st.ok()) return st;
  for (const std::string& c : s->o.choices) Log0(world, absl::StrCat("ddp_step: ", c));
  if (auto st = MakeAllReducers(world, flags, s); !st.ok()) return st;
  std::string device_name;
  // Every rank measures its CPU peak at the same moment, as they will train: cores that share
  // FMA units (SMT siblings, a VM's vCPUs on one host core) or a power budget give each rank
  // less together than alone, and together is what the rank's device delivers in training.
  if (auto st = AllOk(world, "model", BuildModel(world, s, &device_name)); !st.ok()) return st;
  if (auto st = AllOk(world, "set-up", BuildPeakDataAndClock(world, device_name, s)); !st.ok()) return st;
  const StepOptions& o = s->o;
  Log0(world, absl::StrFormat("ddp_step: %d rank(s), %s, %s on %s (B=%d per rank, T=%d, accum=%d); %lld "
                              "parameters; gradients averaged with %s",
                              world->size(), model::DescribeConfig(o.config), accounting::DtypeName(o.dtype),
                              o.device, o.batch, o.seq, s->grad_accum,
                              static_cast<long long>(s->model->num_params()), s->reducer->name()));
  Log0(world, absl::StrCat("ddp_step: data: ", s->source->Describe(), " (rank r uses seed ", o.seed, " + r)"));
  Log0(world, absl::StrCat("ddp_step: hosts: ", world->num_hosts(), " (", HostsText(world), ")",
                           comm::LinkDescription().empty() ? "" : "; link: ", comm::LinkDescription()));
  return absl::OkStatus();
}

}  // namespace macro
