// KV-cache decoding on the CPU (cpu_decoder.h), one layer at a time, each op chosen by the
// config's switches, with the op names of the training model (cpu_gpt.cc) for the per-op timer.
#include "model/cpu_decoder.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

#include <omp.h>

#include "absl/strings/str_cat.h"
#include "accounting/decode_cost.h"
#include "model/attention_cpu.h"
#include "model/bf16.h"
#include "model/encoder_cpu.h"
#include "model/gelu_cpu.h"
#include "model/kv_attention_cpu.h"
#include "model/layernorm_cpu.h"
#include "model/matmul_bf16_cpu.h"
#include "model/matmul_cpu.h"
#include "model/matmul_dequant_cpu.h"
#include "model/matvec_cpu.h"
#include "model/onednn_gemm.h"
#include "model/residual_cpu.h"
#include "model/rmsnorm_cpu.h"
#include "model/rope_cpu.h"
#include "model/swiglu_cpu.h"

namespace model {
namespace {

const float* Slice(const float* base, int64_t offset) { return base == nullptr ? nullptr : base + offset; }

// For a decode step's few rows, the small ops (the norms, RoPE, residual, GeLU or SwiGLU,
// attention over a short cache: SerialAttention) run on the calling thread: their work is
// microseconds, and each OpenMP region they would open is a barrier, which costs a scheduler time
// slice whenever another process holds one of the cores (measured: a 2-thread step went from 23
// ms to 960 ms with one busy neighbour and ~120 regions per token). The Linear layers, where the
// bytes are, keep every thread.
class SerialIfSmall {
 public:
  explicit SerialIfSmall(bool small) : previous_(omp_get_max_threads()), small_(small) {
    if (small_) omp_set_num_threads(1);
  }
  ~SerialIfSmall() {
    if (small_) omp_set_num_threads(previous_);
  }

 private:
  int previous_;
  bool small_;
};

// One op of the forward pass, fn, under the per-op timer (null: untimed) as `name`, the training
// model's op name; on the calling thread alone when `serial` (SerialIfSmall). The Linear layers
// and the prompt's encoder pass kAllThreads.
constexpr bool kAllThreads = false;
template <typename Fn>
void TimedOp(OpTimer* timer, std::string_view name, bool serial, const Fn& fn) {
  ScopedOp op(timer, name);
  SerialIfSmall serial_if_small(serial);
  fn();
}

// Attention over the cache keeps every thread once the K and V rows it reads pass this: it is a
// stream from memory, not microseconds of work (the weights pass through the caches between
// tokens). On the Intel Xeon (AMX) VM, gpt2 B=1 at positions 64-127 (about 590 KB a layer), the
// attention took 0.70 ms a token on one thread and 0.37-0.39 ms on two.
constexpr int64_t kSerialAttentionMaxBytes = 256 << 10;

// Whether a layer's attention over `keys` cached positions (summed over the streams) stays on
// the calling thread: only when the step is small and so is what it reads.
bool SerialAttention(bool small, int64_t keys, const GptConfig& config) {
  const int64_t bytes = 2 * keys * config.kv_width() * static_cast<int64_t>(sizeof(float));
  return small && bytes < kSerialAttentionMaxBytes;
}

// The widened tile a prompt's Linear layer over int8 or bf16 weights needs (matmul_dequant_cpu.h),
// for the widest of the decoder's Linear weights.
int64_t DequantScratchForConfig(const GptConfig& config) {
  const int64_t C = config.width, Vp = config.padded_vocab;
  const int64_t QKV = config.qkv_width(), FC = config.fc_width(), Fh = config.hidden();
  int64_t floats = 0;
  for (const auto& [OC, Cin] : {std::pair{QKV, C}, std::pair{C, C}, std::pair{FC, C}, std::pair{C, Fh},
                                std::pair{Vp, C}}) {
    floats = std::max(floats, DequantScratchFloats(Cin, OC));
  }
  return floats;
}

// int8 weights: quantises every Linear weight once (each stacked tensor as one matrix of L * OC
// rows; the LM head, wte when tied).
absl::Status QuantizeLinearWeights(const GptConfig& config, const ParamPointers<const float>& p,
                                   Int8LinearWeights* int8) {
  const int64_t C = config.width, L = config.layers, Vp = config.padded_vocab;
  const int64_t QKV = config.qkv_width(), FC = config.fc_width(), Fh = config.hidden();
  struct Matrix {
    const float* w;
    int64_t rows, cols;
  };
  const Matrix all[] = {{p.qkvw, L * QKV, C}, {p.attprojw, L * C, C}, {p.fcw, L * FC, C},
                        {p.fcprojw, L * C, Fh}, {p.lm_head, Vp, C}};
  for (const Matrix& m : all) {
    if (absl::Status st = int8->Add(m.w, m.rows, m.cols); !st.ok()) return st;
  }
  return absl::OkStatus();
}

}  // namespace

CpuDecoder::CpuDecoder(const GptConfig& config, const float* params, int B, int max_prompt, int max_positions)
    : config_(config),
      layout_(config),
      params_(params),
      B_(B),
      max_prompt_(max_prompt),
      max_positions_(max_positions) {
  slot_pos_.assign(static_cast<size_t>(B), 0);
  logit_rows_ = B;
}

absl::StatusOr<std::unique_ptr<CpuDecoder>> CpuDecoder::Create(const GptConfig& config, const float* params,
                                                               int B, int max_prompt, int max_positions,
                                                               WeightFormat weights, PromptMath math) {
  if (auto st = CheckDecoderShape(config, B, max_prompt, max_positions); !st.ok()) return st;
  if (params == nullptr) return absl::InvalidArgumentError("params is null");
  if (math == PromptMath::kBf16 && weights != WeightFormat::kBf16) {
    return absl::InvalidArgumentError(absl::StrCat("bf16 prompt math with ", WeightFormatName(weights),
                                                   " weights: it needs bf16 weights"));
  }
  if (math == PromptMath::kBf16) {
    absl::StatusOr<std::string> impl = OneDnnBf16Implementation();
    if (!impl.ok()) return impl.status();
  }
  std::unique_ptr<CpuDecoder> d(new CpuDecoder(config, params, B, max_prompt, max_positions));
  const int64_t C = config.width, NH = config.heads, L = config.layers, Vp = config.padded_vocab;
  const int64_t QKV = config.qkv_width(), FC = config.fc_width(), Fh = config.hidden();
  const int64_t KVW = config.kv_width();
  const int64_t rows = static_cast<int64_t>(B) * max_prompt;
  // As gpt_memory.cc's EstimateDecodeMemory counts them.
  d->x_ = AlignedArray<float>(rows * C);
  d->ln_ = AlignedArray<float>(rows * C);
  d->mean_ = AlignedArray<float>(rows);
  d->rstd_ = AlignedArray<float>(rows);
  d->qkv_ = AlignedArray<float>(rows * QKV);
  d->atty_ = AlignedArray<float>(rows * C);
  d->proj_ = AlignedArray<float>(rows * C);
  d->fch_ = AlignedArray<float>(rows * FC);
  d->fch_gelu_ = AlignedArray<float>(rows * Fh);
  d->att_ = AlignedArray<float>(static_cast<int64_t>(B) * NH * max_prompt * max_prompt);
  d->scores_ = AlignedArray<float>(static_cast<int64_t>(B) * NH * max_positions);
  d->last_ = AlignedArray<float>(static_cast<int64_t>(B) * C);
  d->logits_ = AlignedArray<float>(static_cast<int64_t>(B) * Vp);
  d->k_cache_ = AlignedArray<float>(L * B * max_positions * KVW);
  d->v_cache_ = AlignedArray<float>(L * B * max_positions * KVW);
  if (config.positions == PositionKind::kRope) {
    const int64_t half = config.head_size() / 2;
    d->rope_cos_.assign(static_cast<size_t>(max_positions * half), 0.0f);
    d->rope_sin_.assign(static_cast<size_t>(max_positions * half), 0.0f);
    rope_table(d->rope_cos_.data(), d->rope_sin_.data(), max_positions, config.head_size(),
               config.rope_theta);
  }
  d->weights_ = weights;
  d->math_ = math;
  if (weights == WeightFormat::kBf16) {
    const int64_t n = d->layout_.num_params();
    d->params_bf16_ = AlignedArray<uint16_t>(n);
    ConvertToBf16(params, d->params_bf16_.data(), n);
    if (math == PromptMath::kBf16) d->inp_bf16_ = AlignedArray<uint16_t>(rows * std::max(C, Fh));  // the widest input
  }
  if (weights == WeightFormat::kInt8) {
    if (absl::Status st = QuantizeLinearWeights(config, PointParams(d->layout_, params), &d->int8_); !st.ok()) {
      return st;
    }
  }
  if (weights != WeightFormat::kFp32 && math == PromptMath::kFp32) {
    d->dequant_scratch_ = AlignedArray<float>(DequantScratchForConfig(config));
  }
  return d;
}

int64_t CpuDecoder::NarrowBytes(const GptConfig& config, int B, int max_prompt, WeightFormat weights,
                                PromptMath math) {
  if (weights == WeightFormat::kFp32) return 0;
  int64_t bytes = 0;
  if (weights == WeightFormat::kBf16) {
    bytes += 2 * ParamLayout(config).num_params();
  } else {
    // Each Linear weight (the LM head included) a byte an element and an fp32 scale a row, as the
    // decode bytes count them (accounting/decode_cost.h).
    const accounting::GptShape shape = ToGptShape(config);
    bytes += accounting::MatmulWeightCount(shape) + 4 * accounting::MatmulOutputRows(shape);
  }
  if (math == PromptMath::kBf16) {
    bytes += 2 * static_cast<int64_t>(B) * max_prompt * std::max(config.width, config.hidden());
  } else {
    bytes += 4 * DequantScratchForConfig(config);
  }
  return bytes;
}

int64_t CpuDecoder::narrow_bytes() const {
  return 2 * (params_bf16_.size() + inp_bf16_.size()) + int8_.bytes() + 4 * dequant_scratch_.size();
}

namespace {

absl::Status SlotsHeld(int in_use) {
  return absl::FailedPreconditionError(absl::StrCat(
      in_use, " slot(s) in use (PrefillSlot/StepSlots): lockstep Prefill and Step need them freed, or Reset"));
}

}  // namespace

void CpuDecoder::Reset() {
  pos_ = 0;
  std::fill(slot_pos_.begin(), slot_pos_.end(), 0);
  slots_in_use_ = 0;
}

absl::Status CpuDecoder::Prefill(absl::Span<const int32_t> tokens, int P) {
  if (auto st = CheckPrefillInput(tokens, P, B_, pos_, max_prompt_, config_.vocab); !st.ok()) return st;
  if (slots_in_use_ > 0) return SlotsHeld(slots_in_use_);
  tokens_.assign(tokens.begin(), tokens.end());
  const ParamPointers<const float> p = PointParams(layout_, params_);
  // wpe is null with RoPE: the token embeddings alone.
  TimedOp(timer_, "encoder_forward", kAllThreads,
          [&] { encoder_forward(x_.data(), tokens_.data(), p.wte, p.wpe, B_, P, config_.width); });
  Forward(Rows{B_, P, pos_, {}, {}});
  pos_ += P;
  return absl::OkStatus();
}

absl::Status CpuDecoder::Step(absl::Span<const int32_t> tokens) {
  if (auto st = CheckStepInput(tokens, B_, pos_, max_positions_, config_.vocab); !st.ok()) return st;
  if (slots_in_use_ > 0) return SlotsHeld(slots_in_use_);
  tokens_.assign(tokens.begin(), tokens.end());
  const ParamPointers<const float> p = PointParams(layout_, params_);
  const int64_t C = config_.width;
  const float* wpe = p.wpe == nullptr ? nullptr : p.wpe + pos_ * C;  // this position's row, if any
  TimedOp(timer_, "encoder_forward", B_ <= kMatvecMaxRows,
          [&] { encoder_forward(x_.data(), tokens_.data(), p.wte, wpe, B_, 1, C); });
  Forward(Rows{B_, 1, pos_, {}, {}});
  pos_ += 1;
  return absl::OkStatus();
}

// --- Slots (continuous batching): each stream at its own position -----------------------------

int CpuDecoder::slot_position(int slot) const {
  return slot >= 0 && slot < B_ ? slot_pos_[static_cast<size_t>(slot)] : -1;
}

absl::Status CpuDecoder::CheckSlot(int slot, bool in_use) const {
  if (slot < 0 || slot >= B_) {
    return absl::InvalidArgumentError(absl::StrCat("slot ", slot, " is out of range; allowed: 0 to ", B_ - 1,
                                                   " (the decoder's B=", B_, " slots)"));
  }
  if (in_use && slot_pos_[slot] == 0) {
    return absl::FailedPreconditionError(absl::StrCat("slot ", slot, " is free: PrefillSlot it first"));
  }
  return absl::OkStatus();
}

absl::Status CpuDecoder::PrefillSlot(int slot, absl::Span<const int32_t> tokens, int P) {
  if (auto st = CheckSlot(slot, false); !st.ok()) return st;
  if (slot_pos_[slot] != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("slot ", slot, " is in use (", slot_pos_[slot], " positions): FreeSlot it first"));
  }
  if (pos_ != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("lockstep streams hold ", pos_, " positions (Prefill/Step): Reset before using slots"));
  }
  // One stream's prompt: the lockstep checks with B=1.
  if (auto st = CheckPrefillInput(tokens, P, 1, 0, max_prompt_, config_.vocab); !st.ok()) return st;
  tokens_.assign(tokens.begin(), tokens.end());
  const ParamPointers<const float> p = PointParams(layout_, params_);
  TimedOp(timer_, "encoder_forward", kAllThreads,
          [&] { encoder_forward(x_.data(), tokens_.data(), p.wte, p.wpe, 1, P, config_.width); });
  const int slots[1] = {slot}, positions[1] = {0};
  Forward(Rows{1, P, 0, slots, positions});
  slot_pos_[slot] = P;
  ++slots_in_use_;
  return absl::OkStatus();
}

absl::Status CpuDecoder::StepSlots(absl::Span<const int32_t> tokens, absl::Span<const int> slots) {
  const int64_t n = static_cast<int64_t>(slots.size());
  if (n < 1 || n > B_) {
    return absl::InvalidArgumentError(absl::StrCat(n, " slots given; allowed: 1 to B=", B_));
  }
  if (static_cast<int64_t>(tokens.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(tokens.size(), " tokens given for ", n, " slots: one each"));
  }
  std::vector<bool> seen(static_cast<size_t>(B_), false);
  step_pos_.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int s = slots[i];
    if (auto st = CheckSlot(s, true); !st.ok()) return st;
    if (seen[s]) return absl::InvalidArgumentError(absl::StrCat("slot ", s, " is listed twice"));
    seen[s] = true;
    if (slot_pos_[s] >= max_positions_) {
      return absl::OutOfRangeError(absl::StrCat("slot ", s, " holds ", slot_pos_[s], " of ", max_positions_,
                                                " positions: no room for another token"));
    }
    if (tokens[i] < 0 || tokens[i] >= config_.vocab) {
      return absl::InvalidArgumentError(absl::StrCat("token ", tokens[i], " at index ", i,
                                                     " is out of range; allowed: 0 to ", config_.vocab - 1));
    }
    step_pos_[i] = slot_pos_[s];
  }
  tokens_.assign(tokens.begin(), tokens.end());
  const ParamPointers<const float> p = PointParams(layout_, params_);
  const int64_t C = config_.width;
  // Each row's token and, with learned positions, its own position's row of wpe.
  TimedOp(timer_, "encoder_forward", n <= kMatvecMaxRows, [&] {
    for (int64_t i = 0; i < n; ++i) {
      const float* wpe = p.wpe == nullptr ? nullptr : p.wpe + step_pos_[i] * C;
      encoder_forward(x_.data() + i * C, tokens_.data() + i, p.wte, wpe, 1, 1, C);
    }
  });
  Forward(Rows{n, 1, 0, slots, step_pos_});
  for (int s : slots) ++slot_pos_[s];
  return absl::OkStatus();
}

absl::Status CpuDecoder::FreeSlot(int slot) {
  if (auto st = CheckSlot(slot, true); !st.ok()) return st;
  slot_pos_[slot] = 0;
  --slots_in_use_;
  return absl::OkStatus();
}

void CpuDecoder::Linear(float* out, const float* inp, const float* weight, const float* bias, int64_t rows,
                        int64_t C, int64_t OC, const char* tag) {
  if (weights_ == WeightFormat::kBf16) {
    const uint16_t* w = params_bf16_.data() + (weight - params_);
    if (rows <= kMatvecMaxRows) {
      matvec_forward_bf16(out, inp, w, bias, rows, C, OC, tag);
    } else if (math_ == PromptMath::kFp32) {
      matmul_forward_bf16w(out, inp, w, bias, rows, C, OC, dequant_scratch_.data(), tag);
    } else {
      ConvertToBf16(inp, inp_bf16_.data(), rows * C);
      matmul_forward_bf16(out, inp_bf16_.data(), w, bias, 1, rows, C, OC, tag);
    }
    return;
  }
  if (weights_ == WeightFormat::kInt8) {
    const Int8LinearWeights::Rows w = int8_.Find(weight, C);
    if (rows <= kMatvecMaxRows) {
      matvec_forward_int8(out, inp, w.q, w.scales, bias, rows, C, OC, tag);
    } else {
      matmul_forward_int8(out, inp, w.q, w.scales, bias, rows, C, OC, dequant_scratch_.data(), tag);
    }
    return;
  }
  // The matrix-vector form for a decode step's few rows (it reads each weight once, unpacked), the
  // CPU GEMM backend (matmul_cpu.h) for a prompt's many.
  if (rows <= kMatvecMaxRows) {
    matvec_forward(out, inp, weight, bias, rows, C, OC, tag);
  } else {
    matmul_forward(out, inp, weight, bias, 1, rows, C, OC, tag);
  }
}

void CpuDecoder::Norm(float* out, const float* inp, const float* w, const float* b, int64_t rows,
                      bool serial) {
  if (config_.norm == NormKind::kRmsNorm) {
    TimedOp(timer_, "rmsnorm_forward", serial,
            [&] { rmsnorm_forward(out, rstd_.data(), inp, w, 1, rows, config_.width); });
  } else {
    TimedOp(timer_, "layernorm_forward", serial,
            [&] { layernorm_forward(out, mean_.data(), rstd_.data(), inp, w, b, 1, rows, config_.width); });
  }
}

void CpuDecoder::AttentionBlock(int64_t l, const Rows& rows) {
  const int64_t C = config_.width, QKV = config_.qkv_width();
  const int64_t BT = rows.count();
  const ParamPointers<const float> p = PointParams(layout_, params_);
  const bool small = BT <= kMatvecMaxRows;
  float* x = x_.data();
  Norm(ln_.data(), x, p.ln1w + l * C, Slice(p.ln1b, l * C), BT, small);
  TimedOp(timer_, "matmul_forward/qkv", kAllThreads, [&] {
    Linear(qkv_.data(), ln_.data(), p.qkvw + l * QKV * C, Slice(p.qkvb, l * QKV), BT, C, QKV, "qkv");
  });
  CachedAttention(l, rows, small);
  TimedOp(timer_, "matmul_forward/attproj", kAllThreads, [&] {
    Linear(proj_.data(), atty_.data(), p.attprojw + l * C * C, Slice(p.attprojb, l * C), BT, C, C, "attproj");
  });
  TimedOp(timer_, "residual_forward", small, [&] { residual_forward(x, x, proj_.data(), BT * C); });
}

void CpuDecoder::CachedAttention(int64_t l, const Rows& rows, bool small) {
  const int64_t B = B_, C = config_.width, NH = config_.heads, NKV = config_.kv_head_count();
  const int64_t KVW = config_.kv_width(), hd = config_.head_size();
  const int64_t T = rows.T, maxT = max_positions_, half = hd / 2, pos = rows.pos;
  float* kc = k_cache_.data() + l * B * maxT * KVW;
  float* vc = v_cache_.data() + l * B * maxT * KVW;
  if (!rows.slots.empty()) return SlottedAttention(kc, vc, rows, small);
  if (config_.positions == PositionKind::kRope) {
    // The new q and k rotated at their positions pos .. pos + T - 1 (every stream's the same).
    TimedOp(timer_, "rope_forward", small, [&] {
      rope_forward(qkv_.data(), rope_cos_.data() + pos * half, rope_sin_.data() + pos * half, B, T, NH, NKV, hd);
    });
  }
  TimedOp(timer_, "kv_cache_write", small,
          [&] { kv_cache_write(kc, vc, qkv_.data(), B, T, C, NH, maxT, pos, NKV); });
  TimedOp(timer_, "attention_forward", SerialAttention(small, B * (pos + T), config_), [&] {
    if (pos == 0 && T > 1) {
      // The prompt: the training model's attention (GEMMs per head) over its T tokens.
      attention_forward(atty_.data(), att_.data(), qkv_.data(), B, T, C, NH, NKV);
    } else {
      kv_attention_forward(atty_.data(), scores_.data(), qkv_.data(), kc, vc, B, T, C, NH, maxT, pos, NKV);
    }
  });
}

void CpuDecoder::SlottedAttention(float* kc, float* vc, const Rows& rows, bool small) {
  const int64_t C = config_.width, NH = config_.heads, NKV = config_.kv_head_count();
  const int64_t QKV = config_.qkv_width(), KVW = config_.kv_width(), hd = config_.head_size();
  const int64_t T = rows.T, maxT = max_positions_, half = hd / 2, n = rows.streams;
  // Stream i's rows of qkv and atty, and its slot's cache: (NKV, maxT, hs) at slot * maxT * KVW in
  // the layer's (B, NKV, maxT, hs).
  auto qkv = [&](int64_t i) { return qkv_.data() + i * T * QKV; };
  auto k = [&](int64_t i) { return kc + rows.slots[i] * maxT * KVW; };
  auto v = [&](int64_t i) { return vc + rows.slots[i] * maxT * KVW; };
  if (config_.positions == PositionKind::kRope) {
    TimedOp(timer_, "rope_forward", small, [&] {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t pos = rows.positions[i];
        rope_forward(qkv(i), rope_cos_.data() + pos * half, rope_sin_.data() + pos * half, 1, T, NH, NKV, hd);
      }
    });
  }
  TimedOp(timer_, "kv_cache_write", small, [&] {
    for (int64_t i = 0; i < n; ++i) kv_cache_write(k(i), v(i), qkv(i), 1, T, C, NH, maxT, rows.positions[i], NKV);
  });
  int64_t keys = 0;
  for (int64_t i = 0; i < n; ++i) keys += rows.positions[i] + T;
  TimedOp(timer_, "attention_forward", SerialAttention(small, keys, config_), [&] {
    if (T == 1) {
      // One new row a stream: the streams share the threads in one region (each stream's own
      // scores; the call inside runs on its thread, OpenMP nesting being off), not a region a
      // stream. Dynamic: the streams' positions differ.
#pragma omp parallel for schedule(dynamic, 1)
      for (int64_t i = 0; i < n; ++i) {
        kv_attention_forward(atty_.data() + i * C, scores_.data() + i * NH * maxT, qkv(i), k(i), v(i), 1, 1, C,
                             NH, maxT, rows.positions[i], NKV);
      }
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t pos = rows.positions[i];
      float* out = atty_.data() + i * T * C;
      if (pos == 0 && T > 1) {
        attention_forward(out, att_.data(), qkv(i), 1, T, C, NH, NKV);
      } else {
        kv_attention_forward(out, scores_.data(), qkv(i), k(i), v(i), 1, T, C, NH, maxT, pos, NKV);
      }
    }
  });
}

void CpuDecoder::MlpBlock(int64_t l, int64_t BT) {
  const int64_t C = config_.width;
  const int64_t FC = config_.fc_width(), Fh = config_.hidden();
  const ParamPointers<const float> p = PointParams(layout_, params_);
  const bool small = BT <= kMatvecMaxRows;
  float* x = x_.data();
  Norm(ln_.data(), x, p.ln2w + l * C, Slice(p.ln2b, l * C), BT, small);
  TimedOp(timer_, "matmul_forward/fc", kAllThreads, [&] {
    Linear(fch_.data(), ln_.data(), p.fcw + l * FC * C, Slice(p.fcb, l * FC), BT, C, FC, "fc");
  });
  if (config_.mlp == MlpKind::kSwiglu) {
    // silu(gate) * up: fch holds the gate's F values, then the up projection's, per row.
    TimedOp(timer_, "swiglu_forward", small,
            [&] { swiglu_forward(fch_gelu_.data(), static_cast<const float*>(fch_.data()), BT, Fh); });
  } else {
    TimedOp(timer_, "gelu_forward", small, [&] { gelu_forward(fch_gelu_.data(), fch_.data(), BT * Fh); });
  }
  TimedOp(timer_, "matmul_forward/fcproj", kAllThreads, [&] {
    Linear(proj_.data(), fch_gelu_.data(), p.fcprojw + l * C * Fh, Slice(p.fcprojb, l * C), BT, Fh, C,
           "fcproj");
  });
  TimedOp(timer_, "residual_forward", small, [&] { residual_forward(x, x, proj_.data(), BT * C); });
}

void CpuDecoder::Forward(const Rows& rows) {
  const int64_t B = rows.streams, T = rows.T, C = config_.width, L = config_.layers, Vp = config_.padded_vocab;
  const ParamPointers<const float> p = PointParams(layout_, params_);
  for (int64_t l = 0; l < L; ++l) {
    AttentionBlock(l, rows);
    MlpBlock(l, rows.count());
  }
  logit_rows_ = static_cast<int>(B);
  // Only each stream's last token needs logits.
  const float* x = x_.data();
  float* last = last_.data();
  if (T == 1) {
    std::memcpy(last, x, sizeof(float) * B * C);
  } else {
    for (int64_t b = 0; b < B; ++b) std::memcpy(last + b * C, x + (b * T + T - 1) * C, sizeof(float) * C);
  }
  Norm(last, last, p.lnfw, p.lnfb, B, B <= kMatvecMaxRows);
  // The LM head: wte when tied, its own matrix otherwise (ParamPointers::lm_head).
  TimedOp(timer_, "matmul_forward/lm_head", kAllThreads,
          [&] { Linear(logits_.data(), last, p.lm_head, nullptr, B, C, Vp, "lm_head"); });
}

absl::Status CpuDecoder::CopyLogitsToHost(std::vector<float>* out) {
  out->assign(logits_.data(), logits_.data() + logits_.size());
  return absl::OkStatus();
}

absl::Status CpuDecoder::Greedy(std::vector<int32_t>* next) {
  ArgmaxRows(logits_.data(), logit_rows_, config_.vocab, config_.padded_vocab, next);
  return absl::OkStatus();
}

}  // namespace model
