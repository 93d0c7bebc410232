// The memory ledger of a CPU train step: what the run was predicted to hold (the plan of
// step_memory.h, before anything was allocated) beside what it measured, line by line:
// parameters, gradients, AdamW's moments, the bf16 copies, the activations the recompute level
// keeps, the start-up measurements' and the libraries' workspace, and the process's peak
// resident set (VmHWM), as torchtitan and Megatron-LM print a predicted footprint beside the
// allocator's peak. On the CPU at small shapes the largest activation is the logits (B*T*Vp
// floats): no recompute level frees them, and the ledger says so.
#ifndef MACRO_MEMORY_LEDGER_H_
#define MACRO_MEMORY_LEDGER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "accounting/gpt_flops.h"
#include "macro/step_memory.h"
#include "macro/step_options.h"
#include "model/cuda/cuda_memory.h"

namespace macro {

struct MemoryLedger {
  // The CUDA model's ledger: plan.model from its arena's groups (activations with the backward's
  // scratch, cuDNN's workspace included), plan.runtime_bytes cuBLASLt's workspace, and the peak
  // measured as the device memory the run added (one arena, allocated once: its high-water mark).
  bool cuda = false;
  StepMemoryPlan plan;  // predicted
  accounting::Recompute recompute = accounting::Recompute::kNone;
  std::string recompute_flag;              // the level as --recompute names it
  std::string largest_activation;          // the activation buffer the model holds most of: "logits"
  int64_t largest_activation_bytes = 0;
  int64_t activations_resident = -1;  // measured: the activation buffer's pages in memory (mincore)
  int64_t peak_resident = -1;         // measured: VmHWM (CUDA: the device memory added by the run)
  int64_t predicted_peak() const { return plan.total_bytes(); }
};

// The predicted part for `o` (largest activation included); the measured fields stay -1.
MemoryLedger MakeMemoryLedger(const StepMemoryPlan& plan, const StepOptions& o);
// The CUDA model's, from the plan it allocated (model::CudaModelMemoryPlan).
MemoryLedger MakeCudaMemoryLedger(const model::cuda::CudaMemoryPlan& plan, const StepOptions& o);

// The summary's lines, "memory ..." first.
std::vector<std::string> MemoryLedgerLines(const MemoryLedger& ledger);

}  // namespace macro

#endif  // MACRO_MEMORY_LEDGER_H_
