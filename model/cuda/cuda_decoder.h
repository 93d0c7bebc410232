// KV-cache autoregressive decoding on one GPU, for every family of gpt_config.h (GPT-2, Llama):
// the inference half of the CUDA model (cuda_gpt.h), with its launchers (encoder, LayerNorm or
// RMSNorm, matmul through the GemmRunner, RoPE, GeLU or SwiGLU, residual) and one kernel of its
// own (kv_attention_cuda.h: the cache write and the attention of new queries over it; the cache
// holds the K/V heads, NH / NKV times smaller than one per query head with grouped-query
// attention). Implements model::GptDecoder (model/gpt_decoder.h).
//
// Precision: fp32 (weights, cache and activations fp32, GEMMs in true fp32) or bf16 (bf16
// weights, cache and activations, fp32 accumulation; the logits are fp32 on the host either
// way). Parameters are the training model's for a seed (model/param_init.h on the host, as
// MakeCudaModel does) or given; every buffer is allocated once, the cache for max_positions.
// Where the build has no CUDA toolkit, MakeCudaDecoder makes its checks, then returns Unavailable.
#ifndef MODEL_CUDA_CUDA_DECODER_H_
#define MODEL_CUDA_CUDA_DECODER_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "accounting/dtype.h"
#include "model/gpt_config.h"
#include "model/gpt_decoder.h"

namespace model {

// params: (num_params) fp32 host values laid out by ParamLayout(config). B >= 1 streams,
// 1 <= max_prompt <= max_positions <= block. Errors: dtype not fp32/bf16 (InvalidArgument),
// invalid shape (InvalidArgument), no CUDA device (Unavailable, with the probe's reason), not
// enough device memory (ResourceExhausted), a failed allocation (Internal). Uses the calling
// thread's current device.
absl::StatusOr<std::unique_ptr<GptDecoder>> MakeCudaDecoder(const GptConfig& config,
                                                            absl::Span<const float> params, int B,
                                                            int max_prompt, int max_positions,
                                                            accounting::Dtype dtype);

// The build-specific half of MakeCudaDecoder, which calls it after the checks that need no
// device (the dtype is fp32 or bf16, the shape is valid): the decoder on the current device
// (cuda_decoder.cc), or Unavailable where the build has no CUDA toolkit (cuda_decoder_none.cc).
// Call MakeCudaDecoder instead.
absl::StatusOr<std::unique_ptr<GptDecoder>> MakeCudaDecoderOnDevice(const GptConfig& config,
                                                                    absl::Span<const float> params, int B,
                                                                    int max_prompt, int max_positions,
                                                                    accounting::Dtype dtype);

}  // namespace model

#endif  // MODEL_CUDA_CUDA_DECODER_H_
