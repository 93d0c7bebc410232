// DecodeSession, generations and the figures (gpt_decode_session.h).
#include "macro/gpt_decode_session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/ceilings.h"
#include "accounting/mfu.h"
#include "macro/rank_peak.h"
#include "measure/cpu_ceilings.h"
#include "model/cpu_decoder.h"
#include "model/cpu_gemm_backend.h"
#include "model/cuda/cuda_decoder.h"
#include "model/data/rng.h"
#include "model/gemm_chooser.h"
#include "model/gpt_memory.h"
#include "model/host_memory.h"
#include "model/matvec_cpu.h"
#include "model/param_init.h"
#include "model/param_layout.h"
#include "model/step_gemms.h"
#include "model/threads.h"
#include "sysinfo/cpu_info.h"
#include "sysinfo/cuda_info.h"

namespace macro {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::vector<int32_t> DecodePrompt(const model::GptConfig& config, int B, int P, uint64_t seed) {
  model::Rng rng(seed ^ 0xDEC0DEull);
  std::vector<int32_t> t(static_cast<size_t>(B) * P);
  for (int32_t& x : t) x = static_cast<int32_t>(rng.UniformInt(static_cast<uint64_t>(config.vocab)));
  return t;
}

absl::StatusOr<Generation> RunGeneration(model::GptDecoder* d, absl::Span<const int32_t> prompt, int P,
                                         int G) {
  const int B = d->B();
  Generation g;
  g.tokens.assign(static_cast<size_t>(B) * G, 0);
  std::vector<int32_t> next;
  d->Reset();
  double t0 = Now();
  if (auto st = d->Prefill(prompt, P); !st.ok()) return st;
  if (auto st = d->Greedy(&next); !st.ok()) return st;
  g.prefill_s = Now() - t0;
  g.step_s.reserve(G);
  for (int i = 0; i < G; ++i) {
    t0 = Now();
    if (auto st = d->Step(next); !st.ok()) return st;
    if (auto st = d->Greedy(&next); !st.ok()) return st;
    g.step_s.push_back(Now() - t0);
    for (int b = 0; b < B; ++b) g.tokens[static_cast<size_t>(b) * G + i] = next[b];
  }
  std::vector<float> logits;
  if (auto st = d->CopyLogitsToHost(&logits); !st.ok()) return st;
  for (float v : logits) {
    if (!std::isfinite(v)) {
      g.finite = false;
      break;
    }
  }
  return g;
}

std::string WeightsInCacheNote(double weight_bytes_per_step, int64_t llc_bytes) {
  const auto bytes = static_cast<int64_t>(weight_bytes_per_step);
  if (llc_bytes <= 0 || !accounting::StreamFigureIsCacheResident(bytes, llc_bytes)) return "";
  return absl::StrFormat(
      "the weights a step reads (%.1f MB) are under 4x this CPU's last-level cache (%.0f MiB as the OS reports "
      "it): part of them may stay in the cache from one token to the next, so the bound (DRAM's read roof) can "
      "be passed, and a fraction near or above 100%% says so",
      weight_bytes_per_step / 1e6, llc_bytes / 1048576.0);
}

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double pos = p / 100.0 * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

absl::StatusOr<double> DecodeBound(const accounting::DecodeCost& cost, double read_roof, double write_roof) {
  return write_roof > 0 ? accounting::DecodeBoundTokensPerSecond(cost, read_roof, write_roof)
                        : accounting::DecodeBoundTokensPerSecond(cost, read_roof);
}

// With a read_roof probe after every generation: each generation's tokens/s over the bound at its
// own probe; the case's fraction is their median and its bandwidth the probes' median.
absl::Status HoldToProbedRoofs(const accounting::DecodeCost& cost, const std::vector<Generation>& gens, int batch,
                               int generate, DecodeFigures* f) {
  std::vector<double> roofs, fractions;
  for (const Generation& g : gens) {
    if (!(g.read_roof > 0)) return absl::OkStatus();  // all or none
    double decode = 0;
    for (double t : g.step_s) decode += t;
    auto bound = DecodeBound(cost, g.read_roof, f->write_bandwidth);
    if (!bound.ok()) return bound.status();
    roofs.push_back(g.read_roof);
    fractions.push_back(static_cast<double>(batch) * generate / decode / *bound);
  }
  f->roof_probes = static_cast<int>(gens.size());
  f->bandwidth = Percentile(roofs, 50);
  auto bound = DecodeBound(cost, f->bandwidth, f->write_bandwidth);
  if (!bound.ok()) return bound.status();
  f->bound_tokens_per_s = *bound;
  f->bound_fraction = Percentile(fractions, 50);
  f->bound_fraction_min = *std::min_element(fractions.begin(), fractions.end());
  f->bound_fraction_max = *std::max_element(fractions.begin(), fractions.end());
  return absl::OkStatus();
}

absl::StatusOr<DecodeFigures> ComputeDecodeFigures(const model::GptConfig& config, accounting::DecodeWeights weights,
                                                   double bytes_per_kv, int batch, int prompt, int generate,
                                                   const std::vector<Generation>& gens, double bandwidth,
                                                   double peak_flops, double write_bandwidth) {
  if (gens.empty()) return absl::InvalidArgumentError("no timed generations");
  if (!(bandwidth > 0))
    return absl::InvalidArgumentError(absl::StrCat("bandwidth ", bandwidth, " B/s: must be > 0"));
  if (!(peak_flops > 0))
    return absl::InvalidArgumentError(absl::StrCat("peak ", peak_flops, " FLOP/s: must be > 0"));
  DecodeFigures f;
  f.batch = batch;
  f.prompt = prompt;
  f.generate = generate;
  f.generations = static_cast<int>(gens.size());
  std::vector<double> steps;
  for (const Generation& g : gens) {
    if (static_cast<int>(g.step_s.size()) != generate) {
      return absl::InvalidArgumentError(
          absl::StrCat("a generation of ", g.step_s.size(), " steps, ", generate, " expected"));
    }
    if (!(g.prefill_s > 0))
      return absl::InvalidArgumentError(absl::StrCat("prefill time ", g.prefill_s, " s"));
    f.prefill_s += g.prefill_s;
    for (double s : g.step_s) {
      if (!(s > 0)) return absl::InvalidArgumentError(absl::StrCat("step time ", s, " s"));
      f.decode_s += s;
      steps.push_back(s);
    }
  }
  const double n = static_cast<double>(gens.size());
  f.decode_tokens_per_s = static_cast<double>(batch) * generate * n / f.decode_s;
  f.prefill_tokens_per_s = static_cast<double>(batch) * prompt * n / f.prefill_s;
  f.step_ms_median = Percentile(steps, 50) * 1e3;
  f.step_ms_p90 = Percentile(steps, 90) * 1e3;
  auto cost = accounting::DecodeRunCost(model::ToGptShape(config), weights, bytes_per_kv, batch,
                                        prompt, generate);
  if (!cost.ok()) return cost.status();
  f.cost = *cost;
  f.bytes_per_token = cost->bytes_per_token();
  f.weight_bytes_per_token = cost->weight_bytes / cost->tokens();
  f.kv_bytes_per_token = cost->kv_bytes / cost->tokens();
  f.flops_per_token = cost->flops_per_token();
  f.bandwidth = bandwidth;
  f.write_bandwidth = write_bandwidth;
  f.kv_write_bytes_per_token = cost->write_bytes_per_token();
  auto bound = DecodeBound(*cost, bandwidth, write_bandwidth);
  if (!bound.ok()) return bound.status();
  f.bound_tokens_per_s = *bound;
  f.bound_fraction = f.decode_tokens_per_s / f.bound_tokens_per_s;
  if (auto st = HoldToProbedRoofs(*cost, gens, batch, generate, &f); !st.ok()) return st;
  f.achieved_bytes_per_s = f.bytes_per_token * f.decode_tokens_per_s;
  f.peak_flops = peak_flops;
  // The decode steps' model FLOPs over their time and the peak (accounting::Mfu).
  auto mfu = accounting::Mfu(cost->flops * n, f.decode_s, peak_flops);
  if (!mfu.ok()) return mfu.status();
  f.mfu = *mfu;
  return f;
}

namespace {

// --cpu_gemm=auto for decoding: the prompt's Linear forwards (B x prompt rows) and the
// classifier's (B rows), for every batch, where they are GEMMs (over kMatvecMaxRows rows),
// chosen as the train step's are and published. Returns DescribeGemmChoices' lines.
absl::StatusOr<std::vector<std::string>> ChooseDecodeGemms(const DecodeOptions& o) {
  const StepOptions& so = o.step;
  std::vector<model::StepGemm> gemms;
  std::set<std::string> seen;
  auto add = [&](const model::StepGemm& g) {
    if (g.M > model::kMatvecMaxRows && seen.insert(g.Key(model::CpuGemmBackend::kOneDnn)).second) gemms.push_back(g);
  };
  for (int b : o.batches) {
    for (const model::StepGemm& g : model::CpuStepGemms(so.config, b, std::max(1, o.prompt))) {
      if (absl::EndsWith(g.name, ".fwd") && !absl::StartsWith(g.name, "lm_head")) add(g);
    }
    for (const model::StepGemm& g : model::CpuStepGemms(so.config, b, 1)) {
      if (g.name == "lm_head.fwd") add(g);
    }
  }
  std::map<std::string, double> file_rates;
  if (!so.ceilings.empty()) {
    auto c = accounting::ReadCeilings(so.ceilings);
    if (!c.ok()) return absl::InvalidArgumentError(absl::StrCat("--ceilings: ", c.status().message()));
    file_rates = c->gemm_flops_per_s;
  }
  const std::vector<model::CpuGemmBackend> all(std::begin(model::kConcreteCpuGemms),
                                               std::end(model::kConcreteCpuGemms));
  std::string source;
  auto choices = model::ChooseCpuGemms(gemms, all, file_rates, 5, &source);
  if (!choices.ok()) return choices.status();
  if (auto st = model::ApplyCpuGemmChoices(*choices); !st.ok()) return st;
  std::vector<std::string> lines = model::DescribeGemmChoices(*choices);
  lines.insert(lines.begin(), absl::StrCat(gemms.size(), " prompt GEMM shapes, ", source, " (median GFLOP/s, * chosen)"));
  return lines;
}

// The CPU decoder's prompt arithmetic: --dtype's (bf16 weights under --dtype=fp32: widened to fp32).
model::PromptMath PromptMathOf(const DecodeOptions& o) {
  return o.step.dtype == accounting::Dtype::kBf16 ? model::PromptMath::kBf16 : model::PromptMath::kFp32;
}

// A CPU --dtype=bf16 run that cannot run here (no bf16 peak loop, no oneDNN bf16): the error, and
// the weight-only form that runs on any CPU.
absl::Status WithBf16WeightOnlyHint(const absl::Status& st, const DecodeOptions& o) {
  if (st.ok() || o.step.device != "cpu" || o.step.dtype != accounting::Dtype::kBf16) return st;
  return absl::Status(st.code(), absl::StrCat(st.message(), "; for bf16 weights with fp32 arithmetic, which run on "
                                                            "any CPU, give --weights=bf16 --dtype=fp32"));
}

// Refuses up front, with the figures, what the largest case cannot hold (--batch=100000 tried to
// allocate 78 GB and aborted): on the CPU the weights (and the decoder's bf16 or int8 copy), the
// KV cache, the logits and the activations (model/gpt_memory.h); on CUDA the host copy of the
// fp32 weights.
absl::Status CheckDecodeMemory(const DecodeOptions& o) {
  const StepOptions& so = o.step;
  int max_batch = 1;
  for (int b : o.batches) max_batch = std::max(max_batch, b);
  model::DecodeMemoryEstimate need = model::EstimateDecodeMemory(so.config, max_batch, o.prompt, o.positions(), 4);
  // The CPU decoder's bf16 or int8 copy of the weights, and a prompt GEMM's bf16 input or widened tile.
  if (so.device == "cpu") {
    need.weights_bytes += model::CpuDecoder::NarrowBytes(so.config, max_batch, o.prompt, o.weights, PromptMathOf(o));
  }
  if (so.device != "cpu") need = model::DecodeMemoryEstimate{need.weights_bytes, 0, 0, 0};
  if (absl::Status st = model::CheckHostMemory(
          need.total_bytes(),
          absl::StrCat(model::DescribeConfig(so.config), " decoding at batch=", max_batch, " prompt=", o.prompt,
                       " positions=", o.positions()),
          need.Describe());
      !st.ok()) {
    return absl::ResourceExhaustedError(absl::StrCat("--batch: ", st.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<DecodeSession>> DecodeSession::Create(const DecodeOptions& o) {
  std::unique_ptr<DecodeSession> s(new DecodeSession());
  s->o_ = o;
  const StepOptions& so = o.step;
  if (so.threads > 0) model::SetNumThreads(so.threads);
  if (so.device == "cpu") {
    model::SetCpuGemmBackend(so.cpu_gemm);
    s->device_name_ = sysinfo::ReadCpuInfo().model;
  } else {
    const sysinfo::CudaInventory inv = sysinfo::ProbeCuda();
    if (!inv.available)
      return absl::UnavailableError(absl::StrCat("--device=cuda: no CUDA device: ", inv.reason));
    s->device_name_ = inv.devices[0].name;
  }
  s->bytes_per_param_ = o.weights == model::WeightFormat::kInt8 ? 1 : o.weights == model::WeightFormat::kBf16 ? 2 : 4;
  // The CPU decoder keeps its KV cache in fp32 whatever the weights (cpu_decoder.h).
  s->bytes_per_kv_ = so.device == "cpu" ? 4 : s->bytes_per_param_;
  if (absl::Status st = CheckDecodeMemory(o); !st.ok()) return st;
  const model::ParamLayout layout(so.config);
  s->params_.assign(static_cast<size_t>(layout.num_params()), 0.0f);
  model::InitParams(so.config, layout, so.seed, s->params_.data());

  // The chooser measures the fp32 prompt's GEMM shapes; bf16 runs oneDNN, and int8's dequantised
  // tiles are other shapes (their choice: onednn, auto's default for a shape it has no choice for).
  if (so.device == "cpu" && so.cpu_gemm == model::CpuGemmBackend::kAuto && o.weights == model::WeightFormat::kFp32) {
    auto lines = ChooseDecodeGemms(o);
    if (!lines.ok()) return lines.status();
    s->gemm_choices_ = std::move(*lines);
  }

  auto peak = ChooseRunPeak(so, s->device_name_, so.threads);
  if (!peak.ok()) return WithBf16WeightOnlyHint(peak.status(), o);
  s->peak_ = peak->peak;
  s->run_peak_ = *peak;
  // A STREAM figure on cache-sized arrays (`ceilings --sizes=quick`) is not a memory bound:
  // ignored, with a note, for the start-up DRAM measurement (accounting/ceilings.h).
  std::string ignored;
  if (peak->peak.bytes_per_s > 0 && peak->peak.bandwidth_cache_resident) {
    ignored = absl::StrFormat(
        " (the --ceilings file's STREAM figure, %.1f GB/s, is cache-resident: not a memory bound, ignored)",
        peak->peak.bytes_per_s / 1e9);
  }
  // On the CPU the bound is the read roof, decode's kind of traffic (accounting/memory_roofs.h), and
  // the cache writes count at the write_nt roof: the peak's (a --ceilings file's, or measured at
  // start-up with the FMA probe), else measured now on the run's threads.
  const std::map<std::string, double>& roofs = peak->peak.memory.dram_bytes_per_s;
  if (so.device == "cpu" && ignored.empty() && roofs.count("read") && roofs.count("write_nt")) {
    s->bandwidth_ = roofs.at("read");
    s->write_bandwidth_ = roofs.at("write_nt");
    s->bandwidth_source_ = absl::StrFormat("read memory roof (cache writes at the write_nt roof, %.1f GB/s), from "
                                           "the peak's source: %s",
                                           s->write_bandwidth_ / 1e9, peak->peak.source);
  } else if (so.device == "cpu") {
    // --peak_flops and the start-up FMA probe give no bandwidth, a --ceilings file without memory
    // roofs (written before them) or a cache-resident one: measure the roofs now.
    auto m = micro::MeasureCpuCeilings();
    if (!m.ok()) return m.status();
    s->bandwidth_ = m->stream.roofs.at("read");
    s->write_bandwidth_ = m->stream.roofs.at("write_nt");
    auto probe = micro::ReadRoofProbe::Create(m->stream.elements * 4);
    if (!probe.ok()) return probe.status();
    s->read_probe_ = std::move(*probe);
    s->bandwidth_source_ = absl::StrCat("read memory roof measured at start-up: ", micro::DescribeCpuMethod(*m),
                                        peak->peak.bytes_per_s > 0 && ignored.empty()
                                            ? " (the --ceilings file has no memory roofs: written before them)"
                                            : "",
                                        ignored);
  } else if (peak->peak.bytes_per_s > 0 && ignored.empty()) {
    s->bandwidth_ = peak->peak.bytes_per_s;
    s->bandwidth_source_ = peak->peak.source;
  } else {
    auto sheet = accounting::DatasheetPeak(s->device_name_, so.dtype);
    if (!sheet.ok() || !(sheet->bytes_per_s > 0)) {
      return absl::InvalidArgumentError(absl::StrCat("no memory bandwidth for '", s->device_name_,
                                                     "': give --ceilings=FILE (a measured copy bandwidth)"));
    }
    s->bandwidth_ = sheet->bytes_per_s;
    s->bandwidth_source_ = absl::StrCat(sheet->source, ignored);
  }
  return s;
}

absl::Status DecodeSession::ProbePeakAgain() {
  auto probed = ProbeAgain(run_peak_);
  if (!probed.ok()) return probed.status();
  peak_ = probed->peak;
  probes_ = probed->probes;
  return absl::OkStatus();
}

absl::StatusOr<model::GptDecoder*> DecodeSession::Decoder(int batch) {
  if (decoder_ && decoder_->B() == batch) return decoder_.get();
  decoder_.reset();  // free the previous case's cache first
  const StepOptions& so = o_.step;
  if (so.device == "cpu") {
    auto d = model::CpuDecoder::Create(so.config, params_.data(), batch, o_.prompt, o_.positions(), o_.weights,
                                       PromptMathOf(o_));
    if (!d.ok()) return WithBf16WeightOnlyHint(d.status(), o_);
    decoder_ = std::move(*d);
  } else {
    auto d = model::MakeCudaDecoder(so.config, params_, batch, o_.prompt, o_.positions(), so.dtype);
    if (!d.ok()) return d.status();
    decoder_ = std::move(*d);
  }
  return decoder_.get();
}

}  // namespace macro
