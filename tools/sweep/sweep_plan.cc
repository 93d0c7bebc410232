// PlanPoints and GptStepArgs (sweep_plan.h).
#include "tools/sweep/sweep_plan.h"

#include "absl/strings/str_cat.h"
#include "macro/step_memory.h"
#include "model/onednn_gemm.h"
#include "sysinfo/cuda_info.h"

namespace sweep {
namespace {

macro::RawStepFlags RawFlags(const SweepPoint& p, const CommonFlags& common) {
  macro::RawStepFlags f;
  f.preset = p.preset;
  f.batch = p.batch;
  f.seq = p.seq;
  f.dtype = p.dtype;
  f.recompute = p.recompute;
  f.device = common.device;
  f.steps = common.steps;
  f.warmup_steps = common.warmup_steps;
  f.threads = common.threads;
  f.ceilings = common.ceilings;
  return f;
}

}  // namespace

absl::StatusOr<std::vector<PlannedPoint>> PlanPoints(const std::vector<SweepPoint>& points, const CommonFlags& common) {
  const sysinfo::CudaInventory cuda = sysinfo::ProbeCuda();
  std::vector<PlannedPoint> out;
  for (const SweepPoint& p : points) {
    PlannedPoint planned;
    planned.point = p;
    absl::StatusOr<macro::StepOptions> o = macro::ResolveStepOptions(RawFlags(p, common), cuda);
    if (!o.ok()) {
      planned.refused = std::string(o.status().message());
      out.push_back(std::move(planned));
      continue;
    }
    planned.options = *o;
    if (o->device == "cpu" && o->dtype == accounting::Dtype::kBf16) {
      // gpt_step would stop at its first bf16 GEMM: refuse the point here, with oneDNN's reason.
      if (absl::StatusOr<std::string> bf16 = model::OneDnnBf16Implementation(); !bf16.ok()) {
        planned.refused = absl::StrCat("bf16 on this CPU: ", bf16.status().message());
        out.push_back(std::move(planned));
        continue;
      }
    }
    auto flops = accounting::GptStepFlops(model::ToGptShape(o->config), o->seq, o->batch, 1, o->convention,
                                          o->recompute);
    if (flops.ok()) planned.model_flops_per_step = flops->model_flops_per_step;
    if (o->device == "cpu") {
      absl::StatusOr<macro::StepMemoryPlan> plan = macro::PlanStepMemory(*o, o->threads);
      if (!plan.ok()) {
        planned.refused = std::string(plan.status().message());
      } else {
        planned.memory_bytes = plan->total_bytes();
        if (absl::Status fits = macro::CheckStepMemory(*plan, *o); !fits.ok()) planned.refused = std::string(fits.message());
      }
    }
    out.push_back(std::move(planned));
  }
  return out;
}

std::vector<std::string> GptStepArgs(const PlannedPoint& p, const CommonFlags& common, const std::string& gemm_rates,
                                     const std::string& json_out) {
  const SweepPoint& s = p.point;
  std::vector<std::string> args = {
      absl::StrCat("--preset=", s.preset),         absl::StrCat("--batch=", s.batch),
      absl::StrCat("--seq=", s.seq),               absl::StrCat("--dtype=", s.dtype),
      absl::StrCat("--recompute=", s.recompute),   absl::StrCat("--device=", p.options.device),
      absl::StrCat("--steps=", common.steps),      absl::StrCat("--warmup_steps=", common.warmup_steps),
      absl::StrCat("--threads=", common.threads),  absl::StrCat("--benchmark_out=", json_out),
      "--benchmark_out_format=json"};
  if (!common.ceilings.empty()) args.push_back(absl::StrCat("--ceilings=", common.ceilings));
  const bool caches = p.options.device == "cpu" && p.options.dtype == accounting::Dtype::kFp32;
  if (caches && !gemm_rates.empty()) args.push_back(absl::StrCat("--gemm_rates=", gemm_rates));
  return args;
}

}  // namespace sweep
