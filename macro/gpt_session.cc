// GptSession: model and data set-up, the timed step, the profile schedule.
#include "macro/gpt_session.h"

#include "macro/adamw_probe.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "accounting/ceilings.h"
#include "accounting/flop_counter.h"
#include "macro/adamw_probe.h"
#include "macro/make_model.h"
#include "macro/rank_peak.h"
#include "macro/step_memory.h"
#include "measure/cpu_ceilings.h"
#include "measure/stream.h"
#include "model/cuda/cuda_model.h"
#include "model/onednn_gemm.h"
#include "model/data/token_file.h"
#include "sysinfo/cpu_info.h"

namespace macro {
namespace {

// --gemm_rates: the cache as a ceilings file; a missing file is an empty cache.
absl::StatusOr<accounting::Ceilings> ReadGemmRateCache(const std::string& path) {
  if (access(path.c_str(), F_OK) != 0) return accounting::Ceilings{};
  auto c = accounting::ReadCeilings(path);
  if (!c.ok()) return absl::InvalidArgumentError(absl::StrCat("--gemm_rates: ", c.status().message()));
  return c;
}

// Adds every rate measured now (each candidate's best call, the ceiling //micro:ceilings records)
// to the cache, read again first so that nothing another run added is lost; written atomically.
absl::Status AddToGemmRateCache(const std::string& path, const std::vector<model::GemmChoice>& choices) {
  auto cache = ReadGemmRateCache(path);
  if (!cache.ok()) return cache.status();
  int added = 0;
  for (const model::GemmChoice& c : choices) {
    for (const model::GemmCandidateRate& r : c.candidates) {
      if (r.from_file || !(r.best_flops_per_s > 0)) continue;
      cache->gemm_flops_per_s[c.gemm.Key(r.backend)] = r.best_flops_per_s;
      ++added;
    }
  }
  if (added == 0) return absl::OkStatus();
  if (cache->machine.empty()) cache->machine = sysinfo::ReadCpuInfo().model;
  if (cache->method.empty()) cache->method = "GEMM rates measured by gpt_step at start-up (--gemm_rates)";
  if (auto st = accounting::WriteCeilings(path, *cache); !st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--gemm_rates: ", st.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<StepGemmRate>> StepGemmRates(const StepOptions& o,
                                                        const std::string& ceilings_path,
                                                        std::string* source) {
  if (o.dtype == accounting::Dtype::kBf16) {
    // The mixed-precision step's GEMMs run bf16 on oneDNN's primitive, whatever --cpu_gemm: each
    // shape checked, then its best of 3 calls, measured now (a ceilings file holds fp32 rates).
    auto impl = model::OneDnnBf16Implementation();
    if (!impl.ok()) return impl.status();
    *source = absl::StrCat("bf16 on oneDNN's matmul primitive (", *impl,
                           "), measured at start-up (checked, then best of 3 calls per shape)");
    std::vector<StepGemmRate> rates;
    for (const model::StepGemm& g : model::CpuStepGemms(o.config, o.batch, o.seq, /*bf16=*/true)) {
      auto rate = model::MeasureStepGemmRate(g, 3);
      if (!rate.ok()) return rate.status();
      StepGemmRate r;
      r.gemm = g;
      r.flops_per_s = *rate;
      r.backend = model::CpuGemmBackend::kOneDnn;
      rates.push_back(std::move(r));
    }
    return rates;
  }
  std::map<std::string, double> file_rates;
  if (!ceilings_path.empty()) {
    auto c = accounting::ReadCeilings(ceilings_path);
    if (!c.ok()) return absl::InvalidArgumentError(absl::StrCat("--ceilings: ", c.status().message()));
    file_rates = c->gemm_flops_per_s;
  }
  if (!o.gemm_rates.empty()) {
    auto cache = ReadGemmRateCache(o.gemm_rates);
    if (!cache.ok()) return cache.status();
    file_rates.insert(cache->gemm_flops_per_s.begin(), cache->gemm_flops_per_s.end());
  }
  const bool chooses = o.cpu_gemm == model::CpuGemmBackend::kAuto;
  std::vector<model::CpuGemmBackend> candidates = {o.cpu_gemm};
  if (chooses) candidates.assign(std::begin(model::kConcreteCpuGemms), std::end(model::kConcreteCpuGemms));
  // auto compares medians of interleaved calls; a fixed backend keeps its best of 3 (its ceiling).
  auto choices = model::ChooseCpuGemms(model::CpuStepGemms(o.config, o.batch, o.seq), candidates, file_rates,
                                       chooses ? 5 : 3, source);
  if (!choices.ok()) return choices.status();
  if (!ceilings_path.empty() || !o.gemm_rates.empty()) {
    std::string files = ceilings_path.empty() ? "" : absl::StrCat("--ceilings=", ceilings_path);
    if (!o.gemm_rates.empty() && o.gemm_rates != ceilings_path) {
      absl::StrAppend(&files, files.empty() ? "" : " and ", "--gemm_rates=", o.gemm_rates);
    }
    absl::StrReplaceAll({{"the ceilings file", files}}, source);
  }
  if (chooses) {
    if (auto st = model::ApplyCpuGemmChoices(*choices); !st.ok()) return st;
  }
  if (!o.gemm_rates.empty()) {
    if (auto st = AddToGemmRateCache(o.gemm_rates, *choices); !st.ok()) return st;
  }
  std::vector<StepGemmRate> rates;
  for (const model::GemmChoice& c : *choices) {
    StepGemmRate r;
    r.gemm = c.gemm;
    r.flops_per_s = c.rate().best_flops_per_s;
    r.from_file = c.rate().from_file;
    r.backend = c.backend();
    r.candidates = c.candidates;
    rates.push_back(std::move(r));
  }
  return rates;
}

absl::StatusOr<std::unique_ptr<GptSession>> GptSession::Create(const StepOptions& o, const GemmRates* gemm_rates_of) {
  std::unique_ptr<GptSession> s(new GptSession());
  s->o_ = o;
  if (o.device == "cpu") {
    // Everything the run will hold at its peak, before any of it is allocated (step_memory.h).
    absl::StatusOr<StepMemoryPlan> plan = PlanStepMemory(o, o.threads, /*gemm_rates_kept=*/gemm_rates_of != nullptr);
    if (!plan.ok()) return plan.status();
    if (auto st = CheckStepMemory(*plan, o); !st.ok()) return st;
    s->memory_plan_ = *plan;
  }
  std::string device_name;
  if (o.device != "cpu") s->device_bytes_before_model_ = model::CudaDeviceMemoryInUse();
  auto model = MakeModel(o, /*cuda_device=*/0, &device_name);
  if (!model.ok()) return model.status();
  s->model_ = std::move(*model);
  auto peak = ChooseRunPeak(o, device_name, o.threads, UnknownPeak::kAllow);
  if (!peak.ok()) return peak.status();
  s->peak_ = peak->peak;
  s->run_peak_ = *peak;

  auto flops = accounting::GptStepFlops(model::ToGptShape(o.config), o.seq, o.batch, 1, o.convention, o.recompute);
  if (!flops.ok()) return flops.status();
  s->flops_ = *flops;

  auto random = model::MakeFixedRandomBatchSource(o.batch, o.seq, o.config.vocab, o.seed);
  if (!random.ok()) return random.status();
  s->random_source_ = std::move(*random);
  if (o.real_data || o.compare_data) {
    auto file = model::TokenFile::Open(o.data);
    if (!file.ok()) return absl::InvalidArgumentError(absl::StrCat("--data: ", file.status().message()));
    std::shared_ptr<const model::TokenFile> shared(std::move(*file));
    auto real = model::MakeTokenFileBatchSource(shared, o.batch, o.seq, o.config.vocab, o.seed);
    if (!real.ok()) return absl::InvalidArgumentError(absl::StrCat("--data: ", real.status().message()));
    s->real_source_ = std::move(*real);
  }
  if (o.device == "cpu") {
    s->gemm_info_ = model::CpuGemmInfo(o.cpu_gemm);
    if (gemm_rates_of != nullptr) {  // the choices stay applied (model/cpu_gemm_backend.h, process-wide)
      s->gemm_rates_ = gemm_rates_of->rates;
      s->gemm_rates_source_ = gemm_rates_of->source;
    } else {
      auto rates = StepGemmRates(o, o.ceilings, &s->gemm_rates_source_);
      if (!rates.ok()) return rates.status();
      s->gemm_rates_ = std::move(*rates);
    }
    // STREAM triad, for the step prediction's memory-bound ops, and the in-place memory roof, for
    // AdamW's share and the step's floor (accounting/memory_roofs.h): the --ceilings file's where it
    // has both, else measured now, best of 6, on arrays of 4x the last-level cache up to 256 MiB
    // each (about 0.5 s; uncapped, 20 s and more at one thread on a VM that reports its host's
    // 480 MiB L3). Where the cap leaves the arrays under 4x the cache, cache hits can only raise
    // them: a lower floor and a lower AdamW share, never a flattering one.
    double file_triad = 0, file_in_place = 0;
    if (!o.ceilings.empty()) {
      auto c = accounting::ReadCeilings(o.ceilings);
      if (c.ok()) {
        file_triad = c->triad_bytes_per_s;
        auto it = c->memory.dram_bytes_per_s.find("in_place");
        if (it != c->memory.dram_bytes_per_s.end()) file_in_place = it->second;
      }
    }
    // STREAM's arrays at start-up; the AdamW probe below takes the same bytes.
    const int64_t stream_bytes =
        std::min<int64_t>(micro::StreamArrayBytes(sysinfo::ReadCpuInfo().l3_bytes), micro::kStartupStreamMaxBytes);
    if (file_triad > 0 && file_in_place > 0) {
      s->triad_bytes_per_s_ = file_triad;
      s->in_place_bytes_per_s_ = file_in_place;
      s->triad_source_ = absl::StrCat("from --ceilings=", o.ceilings);
    } else {
      auto stream = micro::MeasureStream(stream_bytes, micro::kStartupStreamTrials);
      if (!stream.ok()) return stream.status();
      s->triad_bytes_per_s_ = stream->triad_bytes_per_s;
      s->in_place_bytes_per_s_ = stream->roofs.at("in_place");
      s->triad_source_ = absl::StrFormat("measured at start-up on 3 arrays of %d MiB, best of %d", stream_bytes >> 20,
                                         micro::kStartupStreamTrials);
    }
    // AdamW alone, for the step prediction: 4 arrays of 3/4 of STREAM's, the same bytes (about 0.2 s).
    auto adamw = MeasureAdamW(stream_bytes / 4 * 3, 3, o.dtype == accounting::Dtype::kBf16);
    if (!adamw.ok()) return adamw.status();
    s->adamw_probe_ = *adamw;
    s->step_ops_ = std::make_unique<model::HostOpTimer>();
  }
  s->clock_ = o.device == "cuda" ? MakeCudaStepClock() : MakeHostStepClock();
  if (s->clock_ == nullptr) return absl::InternalError("no CUDA clock in a build without CUDA");
  return s;
}

std::string GptSession::GemmDescription() const {
  if (o_.dtype != accounting::Dtype::kBf16) return gemm_info_.ToString();
  return absl::StrCat("Linears: ", Bf16LinearsGemm(), "; attention's fp32 GEMMs: ", gemm_info_.ToString(),
                      " (--cpu_gemm=", model::CpuGemmBackendName(o_.cpu_gemm), ")");
}

std::string Bf16LinearsGemm() {
  absl::StatusOr<std::string> impl = model::OneDnnBf16Implementation();
  return absl::StrCat("bf16 on oneDNN's matmul primitive (", impl.ok() ? *impl : std::string(impl.status().message()),
                      "), whatever --cpu_gemm");
}

absl::Status GptSession::ProbePeakAgain() {
  auto probed = ProbeAgain(run_peak_);
  if (!probed.ok()) return probed.status();
  peak_ = probed->peak;
  probes_ = probed->probes;
  return absl::OkStatus();
}

std::string GptSession::DescribeData(bool real_data) const {
  return real_data && real_source_ ? real_source_->Describe() : random_source_->Describe();
}

absl::StatusOr<StepTimes> GptSession::Step(bool real_data) {
  model::BatchSource* source = real_data ? real_source_.get() : random_source_.get();
  if (source == nullptr) return absl::FailedPreconditionError("no token file was given (--data)");
  model::AdamWConfig opt;
  opt.lr = static_cast<float>(o_.lr);
  opt.weight_decay = static_cast<float>(o_.weight_decay);
  opt.beta1 = static_cast<float>(o_.beta1);
  opt.beta2 = static_cast<float>(o_.beta2);

  accounting::FlopCounter counter;
  std::unique_ptr<accounting::ScopedFlopCounter> scope;
  if (steps_done_ == 0) scope = std::make_unique<accounting::ScopedFlopCounter>(&counter);

  // The GEMM ops' in-step time (CPU, outside --profile): the op timer's clock reads cost a few
  // microseconds per step, against steps of tens of milliseconds and more.
  const bool time_ops = step_ops_ != nullptr && !profiling_;
  if (time_ops) {
    step_ops_->Reset();
    model_->SetOpTimer(step_ops_.get());
  }
  clock_->Mark();
  if (auto s = source->Next(&batch_); !s.ok()) return s;
  clock_->Mark();
  if (o_.cuda_graph) {
    // Warm-up step 1 runs uncaptured, step 2 captures and checks the graph, every later step
    // is one replay (model/cuda/cuda_gpt.h, "CUDA graph").
    if (auto s = model_->TrainStep(batch_, opt, steps_done_ + 1); !s.ok()) return s;
  } else {
    if (auto s = model_->Forward(batch_); !s.ok()) return s;
    clock_->Mark();
    model_->ZeroGrad();
    if (auto s = model_->Backward(); !s.ok()) return s;
    clock_->Mark();
    if (auto s = model_->Update(opt, steps_done_ + 1); !s.ok()) return s;
  }
  clock_->Mark();
  StepTimes t;
  if (time_ops) {
    model_->SetOpTimer(nullptr);
    t.gemm = 0;
    for (const model::OpTime& op : step_ops_->Totals()) {
      if (!absl::StartsWith(op.op, "matmul_")) continue;
      t.gemm += op.seconds;
      t.gemm_ops.emplace_back(op.op, op.seconds);
    }
  }
  t.loss = model_->loss();  // synchronises a device
  std::vector<double> sec = clock_->Seconds();
  if (sec.size() != (o_.cuda_graph ? 2u : 4u)) {
    return absl::InternalError("step clock returned the wrong number of intervals");
  }
  t.data = sec[0];
  if (o_.cuda_graph) {
    t.graph = sec[1];
  } else {
    t.forward = sec[1];
    t.backward = sec[2];
    t.optimizer = sec[3];
  }
  if (scope) {
    scope.reset();
    counted_flops_ = counter.total();
  }
  ++steps_done_;
  return t;
}

absl::Status GptSession::Profile(bool real_data, OpTrace* trace) {
  std::unique_ptr<TraceTimer> timer = o_.device == "cuda" ? MakeCudaTraceTimer() : MakeHostTraceTimer();
  if (timer == nullptr) return absl::InternalError("no CUDA trace timer in a build without CUDA");
  const int total = kProfileWait + kProfileWarmup + kProfileActive;
  profiling_ = true;  // Step leaves the op timer to this one
  struct Done {
    bool* flag;
    ~Done() { *flag = false; }
  } done{&profiling_};
  for (int i = 0; i < total; ++i) {
    const bool timing = i >= kProfileWait;
    const bool active = i >= kProfileWait + kProfileWarmup;
    model_->SetOpTimer(timing ? timer.get() : nullptr);
    if (timing) timer->Begin(kStepSpan);
    auto t = Step(real_data);
    if (timing) timer->End();
    if (!t.ok()) {
      model_->SetOpTimer(nullptr);
      return t.status();
    }
    if (timing && !active) timer->Reset();  // warm-up: timed, then discarded
  }
  model_->SetOpTimer(nullptr);
  timer->Flush(trace);
  return absl::OkStatus();
}

SeriesStats Summarise(std::vector<double> v) {
  SeriesStats s;
  s.n = static_cast<int>(v.size());
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.sum = std::accumulate(v.begin(), v.end(), 0.0);
  s.mean = s.sum / v.size();
  s.median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  return s;
}

}  // namespace macro
