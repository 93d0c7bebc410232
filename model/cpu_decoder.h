// Autoregressive decoding with a KV cache on the CPU, for every family of gpt_config.h (GPT-2,
// Llama): the inference half of the model in cpu_gpt.h, over the same parameter buffer
// (param_layout.h) and the same ops, chosen by the config's switches as the training model
// chooses them (encoder; LayerNorm or RMSNorm; matmul on the CPU GEMM backend; RoPE on the new
// q and k at their positions; GeLU or SwiGLU; residual; attention_forward for the prompt,
// kv_attention_cpu.h for the new tokens). It does not own or change the parameters.
//
//   auto d = CpuDecoder::Create(config, model->params(), /*B=*/1, /*max_prompt=*/64,
//                               /*max_positions=*/128);
//   d->Prefill(prompt, P);                 // positions 0 .. P-1; logits for position P
//   for (...) { d->Greedy(&next); d->Step(next); }   // one token per stream each
//
// Prefill runs the whole prompt as one batch of B*P rows (GEMMs), keeps its keys and values, and
// computes the logits of each stream's last prompt token only. Step feeds one token per stream
// at position() and attends over the cache. The cache holds the K/V heads only (grouped-query
// attention: NKV heads of hs, not NH), keys after RoPE where the model has it (each key is
// rotated once, at its own position, when it is written). logits() are fp32 (B, Vp); the padded
// tail (vocab .. Vp-1) is what the model computes there and is not a token.
#ifndef MODEL_CPU_DECODER_H_
#define MODEL_CPU_DECODER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "model/cpu_gpt.h"
#include "model/gpt_config.h"
#include "model/gpt_decoder.h"
#include "model/int8_weights.h"
#include "model/op_timer.h"
#include "model/param_layout.h"
#include "model/weight_format.h"

namespace model {

class CpuDecoder final : public GptDecoder {
 public:
  // params: (num_params) with ParamLayout(config); must outlive the decoder. B >= 1 streams;
  // 1 <= max_prompt <= max_positions <= config.block. Errors name the value and the range.
  // weights (weight_format.h): kBf16, the Linear layers read a bf16 copy of their weights, made
  // here once (the matrix-vector products for a step's few rows widen each weight to fp32 in the
  // register; the prompt's GEMMs run bf16 on oneDNN, their inputs converted): half the weight
  // bytes a token. The embeddings, norms, RoPE, attention, the KV cache and the logits stay fp32.
  // Error when oneDNN cannot run bf16 here (onednn_gemm.h OneDnnBf16Implementation).
  // kInt8: every Linear weight (qkv, attproj, fc, fcproj and the LM head) quantised here once to
  // int8 with one fp32 scale per output row (quantize_int8.h; int8_weights.h holds them); a step's
  // few rows run matvec_int8_cpu.h (1 byte a weight, widened to fp32 in the register), a prompt
  // dequantises a tile at a time into the fp32 GEMM (matmul_int8_cpu.h). With tied weights the
  // LM head reads wte's int8 copy while the token's embedding row is still read from the fp32 wte.
  // Error when a weight is NaN or infinite (named). The fp32 params must still outlive the decoder.
  static absl::StatusOr<std::unique_ptr<CpuDecoder>> Create(const GptConfig& config, const float* params,
                                                            int B, int max_prompt, int max_positions,
                                                            WeightFormat weights = WeightFormat::kFp32);
  WeightFormat weights() const { return weights_; }

  std::string_view device() const override { return "cpu"; }
  const GptConfig& config() const override { return config_; }
  int B() const override { return B_; }
  int max_positions() const override { return max_positions_; }
  int position() const override { return pos_; }
  // 2 * L * B * maxT * NKV * hs floats (NKV * hs = C for multi-head attention).
  int64_t cache_bytes() const override { return 2 * k_cache_.size() * static_cast<int64_t>(sizeof(float)); }

  void Reset() override { pos_ = 0; }
  // tokens: (B, P), 1 <= P <= max_prompt, each in [0, vocab); position() must be 0.
  absl::Status Prefill(absl::Span<const int32_t> tokens, int P) override;
  absl::Status Step(absl::Span<const int32_t> tokens) override;
  absl::Status Greedy(std::vector<int32_t>* next) override;
  absl::Status CopyLogitsToHost(std::vector<float>* out) override;
  // (B, Vp): the next-token logits of each stream after the last Prefill or Step.
  const float* logits() const { return logits_.data(); }

  void SetOpTimer(OpTimer* timer) override { timer_ = timer; }

 private:
  CpuDecoder(const GptConfig& config, const float* params, int B, int max_prompt, int max_positions);
  // Runs the layers over `T` new tokens per stream whose embeddings are in x_, at positions
  // pos_ .. pos_ + T - 1, then the logits of each stream's last one.
  void Forward(int T);
  // Layer l's attention half over the new rows: norm, qkv, RoPE, cache write, attention, the
  // projection and the residual add into x_. Its MLP half: norm, up GEMM, GeLU or SwiGLU, down
  // GEMM, residual add.
  void AttentionBlock(int64_t l, int64_t T);
  void MlpBlock(int64_t l, int64_t T);
  // The config's norm (LayerNorm with its bias, or RMSNorm) over `rows` rows of C, in place allowed.
  void Norm(float* out, const float* inp, const float* w, const float* b, int64_t rows, bool serial);
  // A Linear layer over `rows` rows in the decoder's weight format (matvec for a step's few rows,
  // the GEMM backend for a prompt's many); `weight` points into the fp32 params, and names the
  // bf16 or int8 copy's same rows in those formats.
  void Linear(float* out, const float* inp, const float* weight, const float* bias, int64_t rows, int64_t C,
              int64_t OC, const char* tag);

  GptConfig config_;
  ParamLayout layout_;
  const float* params_;
  int B_, max_prompt_, max_positions_;
  int pos_ = 0;
  WeightFormat weights_ = WeightFormat::kFp32;
  AlignedArray<uint16_t> params_bf16_, inp_bf16_;  // bf16: the weights' copy; a prompt GEMM's input
  Int8LinearWeights int8_;              // int8: the Linear weights' copy
  AlignedArray<float> int8_scratch_;    // int8: a prompt GEMM's dequantised tile (matmul_int8_cpu.h)
  std::vector<int32_t> tokens_;
  // Scratch for up to B * max_prompt rows: x, ln, atty, proj (C), qkv (QKV), fch (FC: F, or 2F
  // for SwiGLU's gate | up), fch_gelu (F).
  AlignedArray<float> x_, ln_, mean_, rstd_, qkv_, atty_, proj_, fch_, fch_gelu_, att_, scores_;
  AlignedArray<float> last_, logits_;      // (B, C), (B, Vp)
  AlignedArray<float> k_cache_, v_cache_;  // (L, B, NKV, maxT, hs) each
  std::vector<float> rope_cos_, rope_sin_;  // RoPE's tables (max_positions, hs / 2); empty otherwise
  OpTimer* timer_ = nullptr;
};

}  // namespace model

#endif  // MODEL_CPU_DECODER_H_
