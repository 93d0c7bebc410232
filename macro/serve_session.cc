// The decoder executor and the serving session (serve_session.h).
#include "macro/serve_session.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "model/cpu_gemm_backend.h"
#include "model/gpt_memory.h"
#include "model/host_memory.h"
#include "model/param_init.h"
#include "model/param_layout.h"
#include "model/threads.h"

namespace macro {

DecoderServeExecutor::DecoderServeExecutor(model::CpuDecoder* decoder, const ServeLoad* load)
    : d_(decoder), load_(load), last_(static_cast<size_t>(decoder->B()), 0) {}

absl::Status DecoderServeExecutor::Pick(absl::Span<const int> slots, absl::Span<const int> requests) {
  const model::GptConfig& c = d_->config();
  for (size_t i = 0; i < slots.size(); ++i) {
    const float* row = d_->logits() + i * static_cast<size_t>(c.padded_vocab);
    for (int v = 0; v < c.vocab; ++v) {
      if (!std::isfinite(row[v])) {
        return absl::InternalError(absl::StrCat("request ", requests[i], " (slot ", slots[i], "): logit ", v, " is ",
                                                row[v], ": the run is broken"));
      }
    }
  }
  if (absl::Status st = d_->Greedy(&next_); !st.ok()) return st;
  for (size_t i = 0; i < slots.size(); ++i) last_[slots[i]] = next_[i];
  return absl::OkStatus();
}

absl::Status DecoderServeExecutor::Prefill(const ServeRequest& r, int slot) {
  if (absl::Status st = d_->PrefillSlot(slot, load_->prompts[r.id], r.prompt); !st.ok()) return st;
  const int s[1] = {slot}, q[1] = {r.id};
  return Pick(s, q);
}

absl::Status DecoderServeExecutor::Decode(absl::Span<const int> slots, absl::Span<const int> requests) {
  std::vector<int32_t> tokens(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) tokens[i] = last_[slots[i]];
  if (absl::Status st = d_->StepSlots(tokens, slots); !st.ok()) return st;
  return Pick(slots, requests);
}

absl::Status DecoderServeExecutor::Free(int slot) { return d_->FreeSlot(slot); }

absl::StatusOr<std::unique_ptr<ServeSession>> ServeSession::Create(const ServeOptions& o,
                                                                   std::vector<std::string>* notes) {
  std::unique_ptr<ServeSession> s(new ServeSession());
  s->o_ = o;
  const model::GptConfig& config = o.step.config;
  if (o.step.threads > 0) model::SetNumThreads(o.step.threads);
  model::SetCpuGemmBackend(o.step.cpu_gemm);  // auto without choices: oneDNN for every shape
  // Refuse up front, with the figures, what the slots cannot hold (as gpt_decode does).
  model::DecodeMemoryEstimate need =
      model::EstimateDecodeMemory(config, o.max_batch, o.max_prompt(), o.max_positions(), 4);
  // The decoder's bf16 or int8 copy of the weights and a prompt GEMM's widened tile.
  need.weights_bytes +=
      model::CpuDecoder::NarrowBytes(config, o.max_batch, o.max_prompt(), o.weights, model::PromptMath::kFp32);
  if (absl::Status st = model::CheckHostMemory(
          need.total_bytes(),
          absl::StrCat(model::DescribeConfig(config), " serving with max_batch=", o.max_batch,
                       " prompts up to ", o.max_prompt(), ", positions up to ", o.max_positions()),
          need.Describe());
      !st.ok()) {
    return absl::ResourceExhaustedError(absl::StrCat("--max_batch: ", st.message()));
  }
  const model::ParamLayout layout(config);
  s->params_.assign(static_cast<size_t>(layout.num_params()), 0.0f);
  model::InitParams(config, layout, o.step.seed, s->params_.data());
  auto d = model::CpuDecoder::Create(config, s->params_.data(), o.max_batch, o.max_prompt(), o.max_positions(),
                                     o.weights);
  if (!d.ok()) return absl::Status(d.status().code(), absl::StrCat("--weights=", model::WeightFormatName(o.weights),
                                                                   ": ", d.status().message()));
  s->decoder_ = std::move(*d);
  notes->push_back(absl::StrCat(layout.num_params(), " parameters (init from --seed=", o.step.seed, "), ",
                                model::NumThreads(), " threads, ", model::WeightFormatName(o.weights),
                                " weights, KV cache ", model::FormatBytes(s->decoder_->cache_bytes()), " for ",
                                o.max_batch, " slots of ", o.max_positions(), " positions"));
  SteadyServeClock clock;
  if (absl::Status st = s->WarmUp(); !st.ok()) return st;
  notes->push_back(absl::StrFormat("warm-up: one prefill of each prompt length %s, steps of 1 to %d slots: %.1f s",
                                   o.prompt.ToString(), o.max_batch, clock.Now()));
  return s;
}

absl::Status ServeSession::WarmUp() {
  // One prefill of every prompt length of the load: oneDNN builds a kernel per GEMM shape on its
  // first call (tens of ms), and each prompt length is a shape of its own; unwarmed, the first
  // requests of each length would pay it, and whichever run (batched or --compare_serial's serial)
  // came first would pay it for the other. Then one token into every slot and two steps of them
  // all: the matrix-vector products of every batch size up to max_batch's rows.
  model::CpuDecoder& d = *decoder_;
  d.Reset();
  std::vector<int32_t> prompt(static_cast<size_t>(o_.max_prompt()), 0);
  for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<int32_t>(i % d.config().vocab);
  for (int P = o_.prompt.lo; P <= o_.prompt.hi; ++P) {
    if (absl::Status st = d.PrefillSlot(0, absl::MakeConstSpan(prompt).subspan(0, P), P); !st.ok()) return st;
    if (absl::Status st = d.FreeSlot(0); !st.ok()) return st;
  }
  std::vector<int> slots;
  for (int s = 0; s < d.B(); ++s) {
    if (absl::Status st = d.PrefillSlot(s, absl::MakeConstSpan(prompt).subspan(0, 1), 1); !st.ok()) return st;
    slots.push_back(s);
    if (s + 1 >= o_.max_positions()) continue;  // slot 0 is at position s + 1: no room for a step
    const std::vector<int32_t> tokens(slots.size(), 1);
    if (absl::Status st = d.StepSlots(tokens, slots); !st.ok()) return st;
  }
  d.Reset();
  return absl::OkStatus();
}

absl::StatusOr<ServeRun> ServeSession::Run(const ServeLoad& load, int max_batch, double max_s,
                                           const std::function<void(const ServeProgress&)>& progress) {
  auto scheduler = ServeScheduler::Create(load.requests, max_batch);
  if (!scheduler.ok()) return scheduler.status();
  ServeRun run{*std::move(scheduler)};
  decoder_->Reset();
  DecoderServeExecutor exec(decoder_.get(), &load);
  SteadyServeClock clock;
  absl::Status st = RunServe(&run.scheduler, &clock, &exec, max_s, progress);
  run.wall_s = clock.Now();
  decoder_->Reset();
  if (st.code() == absl::StatusCode::kDeadlineExceeded) {
    run.stopped = true;
    run.stop_reason = std::string(st.message());
  } else if (!st.ok()) {
    return st;
  }
  return run;
}

}  // namespace macro
