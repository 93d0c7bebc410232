// PlanStepMemory and CheckStepMemory (step_memory.h).
#include "macro/step_memory.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "accounting/ceilings.h"
#include "measure/cpu_ceilings.h"
#include "measure/stream.h"
#include "model/cpu_gemm_backend.h"
#include "model/host_memory.h"
#include "model/step_gemms.h"
#include "model/threads.h"
#include "sysinfo/cpu_info.h"

namespace macro {
namespace {

// Whether the run measures a GEMM rate at start-up: a bf16 step always does; an fp32 one unless
// its --ceilings file holds every rate the GEMM choice needs (the chooser's candidates).
bool MeasuresGemms(const StepOptions& o, const accounting::Ceilings* file, const std::vector<model::StepGemm>& gemms) {
  if (o.dtype == accounting::Dtype::kBf16 || file == nullptr) return true;
  std::vector<model::CpuGemmBackend> candidates = {o.cpu_gemm};
  if (o.cpu_gemm == model::CpuGemmBackend::kAuto) {
    candidates.assign(std::begin(model::kConcreteCpuGemms), std::end(model::kConcreteCpuGemms));
  }
  for (const model::StepGemm& g : gemms) {
    for (model::CpuGemmBackend b : candidates) {
      auto it = file->gemm_flops_per_s.find(g.Key(b));
      if (it == file->gemm_flops_per_s.end() || !(it->second > 0)) return true;
    }
  }
  return false;
}

}  // namespace

std::string StepMemoryPlan::Describe() const {
  return absl::StrCat("model ", model::FormatBytes(model.total_bytes()), " (", model.Describe(), "), start-up ",
                      model::FormatBytes(startup_bytes), " (", startup_what, "), runtime ",
                      model::FormatBytes(runtime_bytes), " touched, ", model::FormatBytes(runtime_address_bytes),
                      " mapped (", threads, threads == 1 ? " thread" : " threads", "): total ",
                      model::FormatBytes(total_bytes()), " touched, ", model::FormatBytes(total_address_bytes()),
                      " mapped");
}

absl::StatusOr<StepMemoryPlan> PlanStepMemory(const StepOptions& o, int threads, bool gemm_rates_kept) {
  StepMemoryPlan plan;
  const bool bf16 = o.dtype == accounting::Dtype::kBf16;
  absl::StatusOr<model::MemoryEstimate> m = model::EstimateCpuTrainingMemory(o.config, o.batch, o.seq, bf16, o.recompute);
  if (!m.ok()) return m.status();
  plan.model = *m;
  std::optional<accounting::Ceilings> file;
  if (!o.ceilings.empty()) {
    absl::StatusOr<accounting::Ceilings> c = accounting::ReadCeilings(o.ceilings);
    if (!c.ok()) return absl::InvalidArgumentError(absl::StrCat("--ceilings: ", c.status().message()));
    file = *c;
  }
  if (!o.gemm_rates.empty()) {  // the cache's rates count as the file's (a missing cache: none)
    absl::StatusOr<accounting::Ceilings> c = accounting::ReadCeilings(o.gemm_rates);
    if (!file) file = accounting::Ceilings{};
    if (c.ok()) file->gemm_flops_per_s.insert(c->gemm_flops_per_s.begin(), c->gemm_flops_per_s.end());
  }
  plan.startup_what = gemm_rates_kept ? "nothing measured: the GEMM rates kept, the --ceilings file's triad"
                                      : "nothing measured: the --ceilings file gives every figure";
  const std::vector<model::StepGemm> gemms = model::CpuStepGemms(o.config, o.batch, o.seq, bf16);
  if (!gemm_rates_kept && MeasuresGemms(o, file ? &*file : nullptr, gemms)) {
    for (const model::StepGemm& g : gemms) {
      if (const int64_t b = model::StepGemmRunnerBytes(g); b > plan.startup_bytes) {
        plan.startup_bytes = b;
        plan.startup_what = absl::StrCat("the GEMM rate of ", g.name, ", M=", g.M, " N=", g.N, " K=", g.K);
      }
    }
  }
  const int64_t stream_array =
      std::min<int64_t>(micro::StreamArrayBytes(sysinfo::ReadCpuInfo().l3_bytes), micro::kStartupStreamMaxBytes);
  // STREAM's triad and in-place roof measured at start-up unless the file has both (gpt_session.cc).
  if (!(file && file->triad_bytes_per_s > 0 && file->memory.dram_bytes_per_s.count("in_place"))) {
    const int64_t array = stream_array;
    if (3 * array > plan.startup_bytes) {
      plan.startup_bytes = 3 * array;
      plan.startup_what = absl::StrFormat("STREAM's 3 arrays of %d MiB", array >> 20);
    }
  }
  {  // the AdamW probe (adamw_probe.h): 4 arrays of 3/4 of STREAM's, after STREAM's are freed
    const int64_t array = stream_array / 4 * 3;
    const int64_t bytes = 4 * array + (bf16 ? array / 2 : 0);
    if (bytes > plan.startup_bytes) {
      plan.startup_bytes = bytes;
      plan.startup_what = absl::StrFormat("the AdamW probe's 4 arrays of %d MiB", array >> 20);
    }
  }
  plan.threads = threads > 0 ? threads : model::NumThreads();
  plan.runtime_bytes = kRuntimeResidentBytes;
  plan.runtime_address_bytes = kRuntimeAddressBytes + (plan.threads - 1) * kAddressPerThreadBytes;
  return plan;
}

absl::Status CheckStepMemory(const StepMemoryPlan& plan, const StepOptions& o) {
  return model::CheckHostMemory(
      plan.total_bytes(), plan.total_address_bytes(),
      absl::StrCat(model::DescribeConfig(o.config), " at batch=", o.batch, " seq=", o.seq,
                   o.dtype == accounting::Dtype::kBf16 ? " (bf16 GEMMs)" : ""),
      plan.Describe());
}

}  // namespace macro
