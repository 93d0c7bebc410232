// The CUDA decoder (kv_decoder_cuda.h): launcher calls, one layer at a time, with the op names
// of the CPU decoder (model/cpu_decoder.cc), each op chosen by the config's switches (LayerNorm or
// RMSNorm, learned positions or RoPE, GeLU or SwiGLU, a cache of the K/V heads).
#include "model/cuda/kv_decoder_cuda.h"

#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "model/cuda/bf16.h"
#include "model/cuda/cuda_memory.h"
#include "model/cuda/device_api.h"
#include "model/cuda/encoder_cuda.h"
#include "model/cuda/gelu_cuda.h"
#include "model/cuda/kv_attention_cuda.h"
#include "model/cuda/layernorm_cuda.h"
#include "model/cuda/matmul_cuda.h"
#include "model/cuda/residual_cuda.h"
#include "model/cuda/rmsnorm_cuda.h"
#include "model/cuda/rope_cuda.h"
#include "model/cuda/swiglu_cuda.h"
#include "model/op_timer.h"
#include "model/param_layout.h"

namespace model {
namespace cuda {
namespace {

// Device buffers of one decoder, freed together.
class Buffers {
 public:
  ~Buffers() {
    for (void* p : owned_) DeviceFree(p);
  }
  template <typename X>
  absl::Status Alloc(X** out, int64_t n) {
    void* p = nullptr;
    const std::string error = DeviceAlloc(&p, std::max<int64_t>(n, 1) * static_cast<int64_t>(sizeof(X)));
    if (!error.empty()) {
      return absl::InternalError(absl::StrCat("allocating ", FormatBytes(n * static_cast<int64_t>(sizeof(X))),
                                              " for the CUDA decoder: ", error));
    }
    owned_.push_back(p);
    *out = static_cast<X*>(p);
    return absl::OkStatus();
  }

 private:
  std::vector<void*> owned_;
};

template <typename S>
class KvDecoder final : public GptDecoder {
 public:
  KvDecoder(const GptConfig& config, int B, int max_prompt, int max_positions,
            std::unique_ptr<GemmRunner> gemm)
      : config_(config),
        layout_(config),
        B_(B),
        max_prompt_(max_prompt),
        max_positions_(max_positions),
        gemm_(std::move(gemm)) {}

  absl::Status Init(absl::Span<const float> params);

  std::string_view device() const override { return "cuda"; }
  const GptConfig& config() const override { return config_; }
  int B() const override { return B_; }
  int max_positions() const override { return max_positions_; }
  int position() const override { return pos_; }
  int64_t cache_bytes() const override {
    return 2 * int64_t{config_.layers} * B_ * max_positions_ * config_.kv_width() *
           static_cast<int64_t>(sizeof(S));
  }
  void Reset() override { pos_ = 0; }
  absl::Status Prefill(absl::Span<const int32_t> tokens, int P) override;
  absl::Status Step(absl::Span<const int32_t> tokens) override;
  absl::Status Greedy(std::vector<int32_t>* next) override;
  absl::Status CopyLogitsToHost(std::vector<float>* out) override;
  void SetOpTimer(OpTimer* timer) override { timer_ = timer; }

 private:
  void Forward(int T);
  // Layer l over the T new tokens of each stream in x_ (positions pos_ .. pos_ + T - 1).
  void Layer(int64_t l, int64_t T, const ParamPointers<S>& w);
  // The config's norm of rows (B, T, C) into out (mean_ and rstd_ as scratch).
  void Norm(S* out, const S* inp, const S* weight, const S* bias, int64_t T);
  // ln_ through the up GEMM, GeLU or SwiGLU, and the down GEMM into proj_.
  void Mlp(int64_t l, int64_t T, const ParamPointers<S>& w);

  GptConfig config_;
  ParamLayout layout_;
  int B_, max_prompt_, max_positions_;
  int pos_ = 0;
  std::unique_ptr<GemmRunner> gemm_;
  Buffers buffers_;
  S* weights_ = nullptr;
  int32_t* tokens_ = nullptr;
  S *x_ = nullptr, *ln_ = nullptr, *qkv_ = nullptr, *atty_ = nullptr, *proj_ = nullptr;
  S *fch_ = nullptr, *fch_gelu_ = nullptr, *last_ = nullptr, *lnf_ = nullptr, *logits_ = nullptr;
  S *k_cache_ = nullptr, *v_cache_ = nullptr;
  float *mean_ = nullptr, *rstd_ = nullptr, *scores_ = nullptr;
  float *rope_cos_ = nullptr, *rope_sin_ = nullptr;  // (max_positions, hs / 2) with RoPE
  OpTimer* timer_ = nullptr;
};

template <typename S>
absl::Status KvDecoder<S>::Init(absl::Span<const float> params) {
  const int64_t n = layout_.num_params();
  if (static_cast<int64_t>(params.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(params.size(), " parameters given, ", n, " expected"));
  }
  const int64_t C = config_.width, NH = config_.heads, L = config_.layers, Vp = config_.padded_vocab;
  const int64_t QKV = config_.qkv_width(), KVW = config_.kv_width(), F = config_.hidden(),
                FC = config_.fc_width();
  const int64_t rows = int64_t{B_} * max_prompt_, maxT = max_positions_, S_bytes = sizeof(S);
  const int64_t half = config_.head_size() / 2, rope = config_.positions == PositionKind::kRope ? 1 : 0;
  // Everything this decoder allocates, checked against free memory before any allocation.
  const int64_t elements =
      n + rows * (C * 4 + QKV + FC + F) + int64_t{B_} * (2 * C + Vp) + 2 * L * B_ * maxT * KVW;
  const int64_t need = elements * S_bytes + rows * 4 * 2 + rows * NH * maxT * 4 + rows * 4 +
                       rope * 2 * maxT * half * 4 + gemm_->workspace_bytes();
  int64_t free_bytes = 0, total_bytes = 0;
  if (std::string e = DeviceMemoryInfo(&free_bytes, &total_bytes); !e.empty())
    return absl::UnavailableError(e);
  if (need > free_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat("the CUDA decoder needs ", FormatBytes(need), ", ",
                                                     FormatBytes(free_bytes), " free of ",
                                                     FormatBytes(total_bytes)));
  }
  for (absl::Status st :
       {buffers_.Alloc(&weights_, n), buffers_.Alloc(&tokens_, rows), buffers_.Alloc(&x_, rows * C),
        buffers_.Alloc(&ln_, rows * C), buffers_.Alloc(&qkv_, rows * QKV), buffers_.Alloc(&atty_, rows * C),
        buffers_.Alloc(&proj_, rows * C), buffers_.Alloc(&fch_, rows * FC),
        buffers_.Alloc(&fch_gelu_, rows * F), buffers_.Alloc(&last_, int64_t{B_} * C),
        buffers_.Alloc(&lnf_, int64_t{B_} * C), buffers_.Alloc(&logits_, int64_t{B_} * Vp),
        buffers_.Alloc(&k_cache_, L * B_ * maxT * KVW), buffers_.Alloc(&v_cache_, L * B_ * maxT * KVW),
        buffers_.Alloc(&mean_, rows), buffers_.Alloc(&rstd_, rows),
        buffers_.Alloc(&scores_, rows * NH * maxT), buffers_.Alloc(&rope_cos_, rope * maxT * half),
        buffers_.Alloc(&rope_sin_, rope * maxT * half)}) {
    if (!st.ok()) return st;
  }
  if (rope) {
    // RoPE's tables for every position the decoder reaches, as the CPU model's.
    std::vector<float> cos(static_cast<size_t>(maxT * half)), sin(cos.size());
    RopeTablesHost(cos.data(), sin.data(), maxT, config_.head_size(), config_.rope_theta);
    CopyToDevice(rope_cos_, cos.data(), maxT * half * 4);
    CopyToDevice(rope_sin_, sin.data(), maxT * half * 4);
  }
  // The weights in storage S, converted on the host (bf16: round to nearest even, as
  // convert_to_bf16 does on the device for the training model's copy).
  std::vector<S> host(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) host[i] = FromFloat<S>(params[i]);
  CopyToDevice(weights_, host.data(), n * S_bytes);
  DeviceSynchronize();
  return absl::OkStatus();
}

template <typename S>
absl::Status KvDecoder<S>::Prefill(absl::Span<const int32_t> tokens, int P) {
  if (auto st = CheckPrefillInput(tokens, P, B_, pos_, max_prompt_, config_.vocab); !st.ok()) return st;
  CopyToDevice(tokens_, tokens.data(), static_cast<int64_t>(tokens.size()) * 4);
  const ParamPointers<S> w = PointParams(layout_, weights_);
  {
    ScopedOp op(timer_, "encoder_forward");
    encoder_forward(x_, tokens_, w.wte, w.wpe, B_, P, config_.width);
  }
  Forward(P);
  return absl::OkStatus();
}

template <typename S>
absl::Status KvDecoder<S>::Step(absl::Span<const int32_t> tokens) {
  if (auto st = CheckStepInput(tokens, B_, pos_, max_positions_, config_.vocab); !st.ok()) return st;
  CopyToDevice(tokens_, tokens.data(), static_cast<int64_t>(tokens.size()) * 4);
  const ParamPointers<S> w = PointParams(layout_, weights_);
  {
    ScopedOp op(timer_, "encoder_forward");
    // The position's row of wpe; RoPE's models have none.
    const S* wpe = w.wpe == nullptr ? nullptr : w.wpe + int64_t{pos_} * config_.width;
    encoder_forward(x_, tokens_, w.wte, wpe, B_, 1, config_.width);
  }
  Forward(1);
  return absl::OkStatus();
}

template <typename S>
void KvDecoder<S>::Norm(S* out, const S* inp, const S* weight, const S* bias, int64_t T) {
  const int64_t B = B_, C = config_.width;
  if (config_.norm == NormKind::kRmsNorm) {
    ScopedOp op(timer_, "rmsnorm_forward");
    rmsnorm_forward(out, rstd_, inp, weight, B, T, C);
  } else {
    ScopedOp op(timer_, "layernorm_forward");
    layernorm_forward(out, mean_, rstd_, inp, weight, bias, B, T, C);
  }
}

template <typename S>
void KvDecoder<S>::Mlp(int64_t l, int64_t T, const ParamPointers<S>& w) {
  const int64_t B = B_, C = config_.width, BT = B * T, F = config_.hidden(), FC = config_.fc_width();
  const S* none = nullptr;
  S* no_aux = nullptr;
  GemmRunner* gemm = gemm_.get();
  {
    ScopedOp op(timer_, "matmul_forward/fc");
    matmul_forward(fch_, ln_, w.fcw + l * FC * C, Slice(w.fcb, l * FC), none, no_aux, B, T, C, FC, gemm,
                   false, "fc");
  }
  if (config_.mlp == MlpKind::kSwiglu) {
    ScopedOp op(timer_, "swiglu_forward");
    swiglu_forward(fch_gelu_, static_cast<const S*>(fch_), BT, F);
  } else {
    ScopedOp op(timer_, "gelu_forward");
    gelu_forward(fch_gelu_, static_cast<const S*>(fch_), BT * F);
  }
  {
    ScopedOp op(timer_, "matmul_forward/fcproj");
    matmul_forward(proj_, fch_gelu_, w.fcprojw + l * C * F, Slice(w.fcprojb, l * C), none, no_aux, B, T, F, C,
                   gemm, false, "fcproj");
  }
}

template <typename S>
void KvDecoder<S>::Layer(int64_t l, int64_t T, const ParamPointers<S>& w) {
  const int64_t B = B_, C = config_.width, NH = config_.heads, NKV = config_.kv_head_count();
  const int64_t QKV = config_.qkv_width(), KVW = config_.kv_width(), hd = config_.head_size();
  const int64_t BT = B * T, maxT = max_positions_;
  const S* none = nullptr;
  S* no_aux = nullptr;
  GemmRunner* gemm = gemm_.get();
  S* kc = k_cache_ + l * B * maxT * KVW;
  S* vc = v_cache_ + l * B * maxT * KVW;
  Norm(ln_, x_, w.ln1w + l * C, Slice(w.ln1b, l * C), T);
  {
    ScopedOp op(timer_, "matmul_forward/qkv");
    matmul_forward(qkv_, ln_, w.qkvw + l * QKV * C, Slice(w.qkvb, l * QKV), none, no_aux, B, T, C, QKV, gemm,
                   false, "qkv");
  }
  if (config_.positions == PositionKind::kRope) {
    // Rows t of the new tokens are positions pos_ + t: the tables from row pos_ on.
    ScopedOp op(timer_, "rope_forward");
    const int64_t half = hd / 2;
    rope_forward(qkv_, rope_cos_ + pos_ * half, rope_sin_ + pos_ * half, B, T, NH, NKV, hd);
  }
  {
    ScopedOp op(timer_, "kv_cache_write");
    kv_cache_write(kc, vc, qkv_, B, T, C, NH, maxT, int64_t{pos_}, NKV);
  }
  {
    ScopedOp op(timer_, "attention_forward");
    kv_attention_forward(atty_, scores_, qkv_, kc, vc, B, T, C, NH, maxT, int64_t{pos_}, NKV);
  }
  {
    ScopedOp op(timer_, "matmul_forward/attproj");
    matmul_forward(proj_, atty_, w.attprojw + l * C * C, Slice(w.attprojb, l * C), none, no_aux, B, T, C, C,
                   gemm, false, "attproj");
  }
  {
    ScopedOp op(timer_, "residual_forward");
    residual_forward(x_, x_, static_cast<const S*>(proj_), BT * C);
  }
  Norm(ln_, x_, w.ln2w + l * C, Slice(w.ln2b, l * C), T);
  Mlp(l, T, w);
  {
    ScopedOp op(timer_, "residual_forward");
    residual_forward(x_, x_, static_cast<const S*>(proj_), BT * C);
  }
}

template <typename S>
void KvDecoder<S>::Forward(int T_new) {
  const int64_t B = B_, T = T_new, C = config_.width, Vp = config_.padded_vocab;
  const ParamPointers<S> w = PointParams(layout_, weights_);
  for (int64_t l = 0; l < config_.layers; ++l) Layer(l, T, w);
  pos_ += T_new;
  // Each stream's last token only.
  for (int64_t b = 0; b < B; ++b) {
    CopyDeviceToDevice(last_ + b * C, x_ + (b * T + T - 1) * C, C * static_cast<int64_t>(sizeof(S)));
  }
  Norm(lnf_, last_, w.lnfw, w.lnfb, 1);
  {
    ScopedOp op(timer_, "matmul_forward/lm_head");
    const S* none = nullptr;
    matmul_forward(logits_, lnf_, w.lm_head, none, none, static_cast<S*>(nullptr), B, 1, C, Vp, gemm_.get(),
                   false, "lm_head");
  }
}

template <typename S>
absl::Status KvDecoder<S>::CopyLogitsToHost(std::vector<float>* out) {
  const int64_t n = int64_t{B_} * config_.padded_vocab;
  std::vector<S> host(static_cast<size_t>(n));
  CopyToHost(host.data(), logits_, n * static_cast<int64_t>(sizeof(S)));  // waits for the device
  out->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) (*out)[i] = ToFloat(host[i]);
  return absl::OkStatus();
}

template <typename S>
absl::Status KvDecoder<S>::Greedy(std::vector<int32_t>* next) {
  std::vector<float> logits;
  if (auto st = CopyLogitsToHost(&logits); !st.ok()) return st;
  ArgmaxRows(logits.data(), B_, config_.vocab, config_.padded_vocab, next);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<GptDecoder>> CreateKvDecoder(const GptConfig& config,
                                                            absl::Span<const float> params, int B,
                                                            int max_prompt, int max_positions,
                                                            CudaPrecision precision,
                                                            std::unique_ptr<GemmRunner> gemm) {
  if (auto st = CheckDecoderShape(config, B, max_prompt, max_positions); !st.ok()) return st;
  if (gemm == nullptr) return absl::InvalidArgumentError("no GEMM runner");
  if (precision == CudaPrecision::kBf16) {
    auto d = std::make_unique<KvDecoder<Bf16>>(config, B, max_prompt, max_positions, std::move(gemm));
    if (auto st = d->Init(params); !st.ok()) return st;
    return std::unique_ptr<GptDecoder>(std::move(d));
  }
  if (precision != CudaPrecision::kFp32) {
    return absl::InvalidArgumentError("the CUDA decoder runs fp32 or bf16");
  }
  auto d = std::make_unique<KvDecoder<float>>(config, B, max_prompt, max_positions, std::move(gemm));
  if (auto st = d->Init(params); !st.ok()) return st;
  return std::unique_ptr<GptDecoder>(std::move(d));
}

}  // namespace cuda
}  // namespace model
