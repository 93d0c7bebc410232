// Memory a training run needs for a chosen batch: parameters, gradients, AdamW's two moments
// and the activations (the CPU model's layout, activation_layout.h, which it allocates exactly).
// A CUDA model keeps the same four parameter-sized buffers; its activations may differ.
#ifndef MODEL_GPT_MEMORY_H_
#define MODEL_GPT_MEMORY_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "accounting/gpt_flops.h"
#include "model/gpt_config.h"

namespace model {

struct MemoryEstimate {
  int64_t num_params = 0;
  int64_t params_bytes = 0;
  int64_t grads_bytes = 0;
  int64_t adamw_bytes = 0;  // m and v
  int64_t activations_bytes = 0;
  int64_t bf16_bytes = 0;  // the CPU bf16 step's copies (EstimateCpuTrainingMemory); 0 in fp32
  int64_t total_bytes() const { return params_bytes + grads_bytes + adamw_bytes + activations_bytes + bf16_bytes; }
  // "params 498.0 MB, grads 498.0 MB, AdamW m+v 995.8 MB, activations 224.1 MB: total 2.2 GB"
  // (", bf16 copies N" before the total when there are some).
  std::string Describe() const;
};

// Memory a decoding run needs (the CPU decoder's buffers, cpu_decoder.h, which it allocates
// exactly; the CUDA decoder keeps the same on the device): the weights, the KV cache for
// max_positions of each of B streams, the logits of B streams and the prompt pass's activations.
struct DecodeMemoryEstimate {
  int64_t weights_bytes = 0;
  int64_t kv_cache_bytes = 0;
  int64_t logits_bytes = 0;
  int64_t activations_bytes = 0;
  int64_t total_bytes() const { return weights_bytes + kv_cache_bytes + logits_bytes + activations_bytes; }
  // "weights 498.0 MB, KV cache 75.50 GB, logits 20.1 MB, activations 2.30 GB: total 78.32 GB"
  std::string Describe() const;
};

// batch, max_prompt, max_positions >= 1 (the decoder checks the shape itself); bytes_per_element
// of the weights and the cache (4: fp32). The cache holds the K/V heads only: 2 * L * batch *
// max_positions * KV * hd elements (grouped-query attention). The CPU decoder's bf16 or int8
// copy of the weights comes on top: cpu_decoder.h's CpuDecoder::NarrowBytes.
DecodeMemoryEstimate EstimateDecodeMemory(const GptConfig& config, int64_t batch, int64_t max_prompt,
                                          int64_t max_positions, int64_t bytes_per_element = 4);

// "1.23 GB", "456.7 MB", "12.0 kB", "17 B" (decimal units), for memory messages here and in the
// CUDA model's plan.
std::string FormatBytes(int64_t bytes);

// Errors as ValidateRunShape. bytes_per_element: 4 for fp32. recompute: the activations the
// level keeps (activation_layout.h, ActivationLayersKept).
absl::StatusOr<MemoryEstimate> EstimateTrainingMemory(const GptConfig& config, int batch, int seq,
                                                      int64_t bytes_per_element = 4,
                                                      accounting::Recompute recompute = accounting::Recompute::kNone);
// What the CPU model allocates (cpu_gpt.h): EstimateTrainingMemory's fp32 buffers, and with
// bf16_gemms a 2-byte copy of every weight, of the Linear inputs and of the largest output gradient.
absl::StatusOr<MemoryEstimate> EstimateCpuTrainingMemory(
    const GptConfig& config, int batch, int seq, bool bf16_gemms,
    accounting::Recompute recompute = accounting::Recompute::kNone);

}  // namespace model

#endif  // MODEL_GPT_MEMORY_H_
