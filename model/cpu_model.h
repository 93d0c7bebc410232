// The CPU fp32 GptModel: oneDNN (or OpenBLAS, cpu_gemm_backend.h) GEMMs and OpenMP loops (cpu_gpt.h),
// parameters initialised from `seed` as GPT-2 does (param_init.h). Thread count: model::SetNumThreads
// (threads.h).
#ifndef MODEL_CPU_MODEL_H_
#define MODEL_CPU_MODEL_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "accounting/gpt_flops.h"
#include "model/gpt_config.h"
#include "model/gpt_model.h"

namespace model {

// Errors: an invalid config, batch < 1, or seq outside [1, block] (ValidateRunShape);
// ResourceExhausted when the memory estimate (gpt_memory.h) exceeds the memory this process may
// still allocate (host_memory.h: MemAvailable, and the address-space limit where one is set).
// bf16_gemms: the mixed-precision step of cpu_gpt.h (bf16 GEMM operands, fp32 masters and the
// rest in fp32); its bf16 copies count in the memory check. FailedPrecondition when oneDNN cannot
// run bf16 here (matmul_bf16_cpu.h). recompute: what the backward computes again (cpu_gpt.h;
// its activations are the smaller buffer the memory check counts).
absl::StatusOr<std::unique_ptr<GptModel>> MakeCpuModel(const GptConfig& config, int B, int T, uint64_t seed,
                                                       bool bf16_gemms = false,
                                                       accounting::Recompute recompute = accounting::Recompute::kNone);

}  // namespace model

#endif  // MODEL_CPU_MODEL_H_
