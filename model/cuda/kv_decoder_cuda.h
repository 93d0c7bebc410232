// The CUDA decoder on any GemmRunner: cuBLASLt on a GPU (MakeCudaDecoder, cuda_decoder.h), or
// the reference runner with the kernel emulator for host tests (kv_decoder_emu_test). Host-only:
// every device operation goes through the launchers (*_cuda.h) and device_api.h.
//
// One decode step per layer: the norm (LayerNorm or RMSNorm), qkv matmul (bias in the epilogue),
// RoPE at each row's position (RoPE's models), kv_cache_write (the K/V heads), kv_attention_forward,
// attention projection, residual add, the norm, fc matmul, GeLU or SwiGLU, fc projection, residual
// add; then the final norm and the LM head on each stream's last token. The prompt runs the same
// sequence over B*P rows (kv_attention over the causal prefix).
#ifndef MODEL_CUDA_KV_DECODER_CUDA_H_
#define MODEL_CUDA_KV_DECODER_CUDA_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "model/cuda/cuda_precision.h"
#include "model/cuda/gemm.h"
#include "model/gpt_config.h"
#include "model/gpt_decoder.h"

namespace model {
namespace cuda {

// precision: kFp32 or kBf16 (kTf32 is InvalidArgument: decode GEMVs gain nothing from it).
// params: fp32 host values, ParamLayout(config). Errors as MakeCudaDecoder's, less the probe.
absl::StatusOr<std::unique_ptr<GptDecoder>> CreateKvDecoder(const GptConfig& config,
                                                            absl::Span<const float> params, int B,
                                                            int max_prompt, int max_positions,
                                                            CudaPrecision precision,
                                                            std::unique_ptr<GemmRunner> gemm);

}  // namespace cuda
}  // namespace model

#endif  // MODEL_CUDA_KV_DECODER_CUDA_H_
