// MakeMemoryLedger and its lines (memory_ledger.h).
#include "macro/memory_ledger.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "model/activation_layout.h"
#include "model/gpt_memory.h"

namespace macro {

MemoryLedger MakeMemoryLedger(const StepMemoryPlan& plan, const StepOptions& o) {
  MemoryLedger l;
  l.plan = plan;
  l.recompute = o.recompute;
  l.recompute_flag = RecomputeFlagName(o.recompute, o.config);
  for (const model::ActivationTensor& t : model::CpuActivationTensors(o.config, o.batch, o.seq, o.recompute)) {
    const int64_t bytes = t.size * static_cast<int64_t>(sizeof(float));
    if (bytes > l.largest_activation_bytes) {
      l.largest_activation_bytes = bytes;
      l.largest_activation = t.name;
    }
  }
  return l;
}

MemoryLedger MakeCudaMemoryLedger(const model::cuda::CudaMemoryPlan& plan, const StepOptions& o) {
  using G = model::cuda::MemoryGroup;
  auto group = [&](G g) { return plan.group_bytes[static_cast<int>(g)]; };
  MemoryLedger l;
  l.cuda = true;
  l.recompute = o.recompute;
  l.recompute_flag = RecomputeFlagName(o.recompute, o.config);
  model::MemoryEstimate& m = l.plan.model;
  m.num_params = plan.tensor(model::cuda::CudaTensor::kParams).elements;  // the group is aligned up
  m.params_bytes = group(G::kParams);
  m.grads_bytes = group(G::kGrads);
  m.adamw_bytes = group(G::kAdamW);
  m.bf16_bytes = group(G::kWeightCopy);
  m.activations_bytes = group(G::kActivations) + group(G::kScratch);
  l.plan.runtime_bytes = plan.workspace_bytes;
  for (const model::cuda::PlannedTensor& t : plan.tensors) {
    if (t.group == G::kActivations && t.bytes() > l.largest_activation_bytes) {
      l.largest_activation_bytes = t.bytes();
      l.largest_activation = t.name;
    }
  }
  return l;
}

namespace {

std::string Percent(int64_t part, int64_t whole) {
  return whole > 0 ? absl::StrFormat("%.0f%%", 100.0 * part / whole) : "n/a";
}

std::string Measured(int64_t measured, int64_t predicted, const std::string& what) {
  if (measured < 0) return absl::StrCat("not measured (", what, " unreadable here)");
  return absl::StrFormat("%s %s, %+.1f%% against predicted", model::FormatBytes(measured), what,
                         predicted > 0 ? 100.0 * (measured - predicted) / predicted : 0.0);
}

}  // namespace

std::vector<std::string> MemoryLedgerLines(const MemoryLedger& l) {
  const model::MemoryEstimate& m = l.plan.model;
  std::vector<std::string> lines;
  lines.push_back("memory ledger predicted before the run (bytes, decimal units) | measured");
  lines.push_back(absl::StrCat("  parameters  ", model::FormatBytes(m.params_bytes), " (", m.num_params, " fp32)"));
  lines.push_back(absl::StrCat("  gradients   ", model::FormatBytes(m.grads_bytes)));
  lines.push_back(absl::StrCat("  AdamW m+v   ", model::FormatBytes(m.adamw_bytes)));
  if (m.bf16_bytes > 0) lines.push_back(absl::StrCat("  bf16 copies ", model::FormatBytes(m.bf16_bytes)));
  lines.push_back(absl::StrCat("  activations ", model::FormatBytes(m.activations_bytes), " kept with --recompute=",
                               l.recompute_flag, " (and the backward's scratch) | ",
                               l.cuda ? "not measured apart (one device arena)"
                                      : Measured(l.activations_resident, m.activations_bytes, "resident (mincore)")));
  const bool logits = l.largest_activation == "logits";
  lines.push_back(absl::StrCat(
      "              the largest: ", l.largest_activation, " ", model::FormatBytes(l.largest_activation_bytes), ", ",
      Percent(l.largest_activation_bytes, m.activations_bytes), " of them",
      logits ? " (B*T*Vp floats: no recompute level frees the logits)" : ""));
  if (l.cuda) {
    lines.push_back(absl::StrCat("  workspace   ", model::FormatBytes(l.plan.runtime_bytes),
                                 " (cuBLASLt's; cuDNN's is in the activations' arena)"));
    lines.push_back(absl::StrCat(
        "  peak        ", model::FormatBytes(l.predicted_peak()), " on the device | ",
        Measured(l.peak_resident, l.predicted_peak(),
                 "device memory the run added (cudaMemGetInfo after the steps minus before the model; the "
                 "libraries' handles included, the CUDA context not)")));
    return lines;
  }
  lines.push_back(absl::StrCat("  workspace   start-up ", model::FormatBytes(l.plan.startup_bytes), " (",
                               l.plan.startup_what, "; freed before the steps), runtime ",
                               model::FormatBytes(l.plan.runtime_bytes),
                               " (the GEMM libraries' workspaces, the threads' stacks and arenas)"));
  lines.push_back(absl::StrCat("  peak        ", model::FormatBytes(l.predicted_peak()), " | ",
                               Measured(l.peak_resident, l.predicted_peak(), "VmHWM")));
  return lines;
}

}  // namespace macro
