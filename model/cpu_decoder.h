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
//
// Slots (CPU only, not part of GptDecoder): the B streams of the cache are also B slots that
// requests take one each, every slot at its own position, as continuous batching needs (vLLM's
// scheduler; macro/serve_scheduler.h): PrefillSlot(s, prompt, P) fills a free slot's positions
// 0 .. P-1, StepSlots(tokens, slots) feeds one token to each listed slot at that slot's own
// position, FreeSlot(s) gives a finished request's slot back.
//
//   d->PrefillSlot(3, prompt, P);                     // logits row 0: slot 3's next token
//   d->StepSlots({t0, t3}, {0, 3});                   // rows 0, 1: slots 0 and 3, each at its position
//   d->FreeSlot(0);
//
// The ops are the lockstep pass's, with a view of one stream at its slot's cache where the
// positions differ: per row the position embedding (GPT-2) or RoPE (Llama) at its own position,
// the cache write and the attention over its own cache (B=1 calls); the norms, the Linear layers
// (one matvec or GEMM over all the rows), GeLU/SwiGLU and the residuals run over all rows at once.
// A slot's prompt runs as a B=1 prefill. The lockstep Prefill/Step keep their own path.
// Lockstep and slots do not mix: Prefill and Step refuse while a slot is in use, PrefillSlot while
// lockstep streams hold positions; Reset empties both.
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

// The arithmetic of a prompt's Linear layers over bf16 weights. kFp32: a tile of rows widened to
// fp32 into the fp32 GEMM (matmul_dequant_cpu.h), the same products as a step's matrix-vector
// form, on any CPU. kBf16: oneDNN's bf16 GEMM, its inputs rounded to bf16 (bf16 units, or
// AVX-512 to emulate them): the --dtype=bf16 of the training step.
enum class PromptMath { kFp32, kBf16 };

class CpuDecoder final : public GptDecoder {
 public:
  // params: (num_params) with ParamLayout(config); must outlive the decoder. B >= 1 streams;
  // 1 <= max_prompt <= max_positions <= config.block. Errors name the value and the range.
  // weights (weight_format.h): kBf16, the Linear layers read a bf16 copy of their weights, made
  // here once: half the weight bytes a token. A step's few rows run matvec_cpu.h's bf16 form (each
  // weight widened to fp32 in the register); a prompt's GEMMs as `math` says (PromptMath).
  // kInt8: every Linear weight (qkv, attproj, fc, fcproj and the LM head) quantised here once to
  // int8 with one fp32 scale per output row (quantize_int8.h; int8_weights.h holds them); a
  // step's few rows run matvec_cpu.h's int8 form (1 byte a weight, widened to fp32 in the
  // register), a prompt widens a tile at a time into the fp32 GEMM (matmul_dequant_cpu.h).
  // With tied weights the LM head reads wte's narrow copy while the token's embedding row is
  // still read from the fp32 wte. The embeddings, norms, RoPE, attention, the KV cache and the
  // logits stay fp32 in every format. Errors: a NaN or infinite weight under kInt8 (named);
  // PromptMath::kBf16 with other than bf16 weights, or where oneDNN cannot run bf16 here
  // (onednn_gemm.h OneDnnBf16Implementation). The fp32 params must still outlive the decoder.
  static absl::StatusOr<std::unique_ptr<CpuDecoder>> Create(const GptConfig& config, const float* params,
                                                            int B, int max_prompt, int max_positions,
                                                            WeightFormat weights = WeightFormat::kFp32,
                                                            PromptMath math = PromptMath::kFp32);
  WeightFormat weights() const { return weights_; }
  PromptMath prompt_math() const { return math_; }

  // The bytes a decoder of these arguments allocates beyond gpt_memory.h's EstimateDecodeMemory
  // (fp32 weights, cache, logits, activations): the narrow copy of the weights (bf16: every
  // weight; int8: the Linear weights and a scale a row), and a prompt GEMM's bf16 input (bf16
  // math) or widened tile (fp32 math). 0 for fp32 weights. Arguments as Create's, unchecked.
  static int64_t NarrowBytes(const GptConfig& config, int B, int max_prompt, WeightFormat weights, PromptMath math);
  // What this decoder allocated of those (NarrowBytes' count, taken from the buffers).
  int64_t narrow_bytes() const;

  std::string_view device() const override { return "cpu"; }
  const GptConfig& config() const override { return config_; }
  int B() const override { return B_; }
  int max_positions() const override { return max_positions_; }
  int position() const override { return pos_; }
  // 2 * L * B * maxT * NKV * hs floats (NKV * hs = C for multi-head attention).
  int64_t cache_bytes() const override { return 2 * k_cache_.size() * static_cast<int64_t>(sizeof(float)); }

  // Empties the cache: lockstep position 0 and every slot free.
  void Reset() override;
  // tokens: (B, P), 1 <= P <= max_prompt, each in [0, vocab); position() must be 0. Prefill and
  // Step refuse while a slot is in use.
  absl::Status Prefill(absl::Span<const int32_t> tokens, int P) override;
  absl::Status Step(absl::Span<const int32_t> tokens) override;
  // The arg max of each of the logit_rows() rows.
  absl::Status Greedy(std::vector<int32_t>* next) override;
  absl::Status CopyLogitsToHost(std::vector<float>* out) override;
  // (logit_rows(), Vp) of a (B, Vp) buffer: the next-token logits of the last call's rows.
  const float* logits() const { return logits_.data(); }
  // Rows of logits() the last call left (and Greedy picks for): B after Prefill or Step, 1 after
  // PrefillSlot, slots.size() after StepSlots.
  int logit_rows() const { return logit_rows_; }

  // slot in [0, B) and free; tokens: (P), 1 <= P <= max_prompt, each in [0, vocab). Positions
  // 0 .. P-1 of that slot; logits row 0 is its next token's.
  absl::Status PrefillSlot(int slot, absl::Span<const int32_t> tokens, int P);
  // tokens: (n) one per slot; slots: (n), 1 <= n <= B distinct slots in use, each at a position
  // < max_positions. Row i of the logits is slots[i]'s; each slot's position advances by one.
  absl::Status StepSlots(absl::Span<const int32_t> tokens, absl::Span<const int> slots);
  // Frees a slot in use (its cache is overwritten by the next PrefillSlot).
  absl::Status FreeSlot(int slot);
  // Tokens slot `slot` holds in the cache: 0 when free; -1 for a slot outside [0, B).
  int slot_position(int slot) const;
  int slots_in_use() const { return slots_in_use_; }

  void SetOpTimer(OpTimer* timer) override { timer_ = timer; }

 private:
  CpuDecoder(const GptConfig& config, const float* params, int B, int max_prompt, int max_positions);
  // The new rows of one forward pass, streams x T of them in x_ (stream-major). Lockstep (slots
  // empty): stream b is the cache's stream b, at positions pos .. pos + T - 1. Slotted: stream i
  // is the cache's slot slots[i], at positions positions[i] .. positions[i] + T - 1.
  struct Rows {
    int64_t streams = 0, T = 0, pos = 0;
    absl::Span<const int> slots, positions;
    int64_t count() const { return streams * T; }
  };
  // Runs the layers over the rows whose embeddings are in x_, then the logits of each stream's
  // last one (logit_rows_ = streams). The caller advances the positions.
  void Forward(const Rows& rows);
  // Layer l's attention half over the new rows: norm, qkv, RoPE, cache write, attention, the
  // projection and the residual add into x_. Its MLP half: norm, up GEMM, GeLU or SwiGLU, down
  // GEMM, residual add.
  void AttentionBlock(int64_t l, const Rows& rows);
  void MlpBlock(int64_t l, int64_t rows);
  // RoPE, the cache write and the attention of layer l: the lockstep calls over all streams, or
  // B=1 calls per slotted stream at its slot's cache and position.
  void CachedAttention(int64_t l, const Rows& rows, bool small);
  // The slotted case of it; kc, vc: layer l's caches (B, NKV, maxT, hs).
  void SlottedAttention(float* kc, float* vc, const Rows& rows, bool small);
  // Error unless 0 <= slot < B (and, with in_use, the slot holds positions).
  absl::Status CheckSlot(int slot, bool in_use) const;
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
  std::vector<int> slot_pos_;   // (B) tokens each slot holds; 0: free
  int slots_in_use_ = 0;
  int logit_rows_ = 0;
  std::vector<int> step_pos_;   // StepSlots' positions of its rows (scratch)
  WeightFormat weights_ = WeightFormat::kFp32;
  PromptMath math_ = PromptMath::kFp32;
  AlignedArray<uint16_t> params_bf16_, inp_bf16_;  // bf16: the weights' copy; a bf16 prompt GEMM's input
  Int8LinearWeights int8_;              // int8: the Linear weights' copy
  AlignedArray<float> dequant_scratch_;  // int8, bf16 with fp32 math: a prompt GEMM's widened tile
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
