// The CPU decoder (GPT-2, Llama): forward, backward and AdamW over the ops in *_cpu.h, one layer at
// a time, each op chosen by the config's switches.
#include "model/cpu_gpt.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"

#include "model/adamw_cpu.h"
#include "model/attention_cpu.h"
#include "model/crossentropy_cpu.h"
#include "model/encoder_cpu.h"
#include "model/gelu_cpu.h"
#include "model/layernorm_cpu.h"
#include "model/bf16.h"
#include "model/matmul_bf16_cpu.h"
#include "model/onednn_gemm.h"
#include "model/matmul_cpu.h"
#include "model/rmsnorm_cpu.h"
#include "model/rope_cpu.h"
#include "model/swiglu_cpu.h"
#include "sysinfo/huge_pages.h"

namespace model {

template <typename F>
AlignedArray<F>::AlignedArray(int64_t n) : n_(n) {
  if (n == 0) return;
  // Buffers of 4 MiB and more on 2 MiB huge pages (sysinfo/huge_pages.h), advised before the
  // first touch below.
  const size_t bytes = static_cast<size_t>(n) * sizeof(F);
  F* p = static_cast<F*>(sysinfo::AllocateLarge(bytes));
  if (p == nullptr) {
    std::fprintf(stderr, "out of memory allocating %zu bytes\n", bytes);
    std::abort();
  }
  data_.reset(p);
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) p[i] = F(0);
}

template <typename F>
void AlignedArray<F>::Free::operator()(F* p) const {
  std::free(p);
}

namespace {

absl::Status CheckRecompute(const GptConfig& config, accounting::Recompute r, bool bf16_gemms) {
  (void)config;
  if (r == accounting::Recompute::kFull) {
    return absl::InvalidArgumentError(
        "recompute 'full' is accounting's whole extra forward pass; the model recomputes a level: activation, "
        "attention or block");
  }
  if (bf16_gemms && r != accounting::Recompute::kNone) {
    return absl::UnimplementedError(absl::StrCat("recompute '", accounting::RecomputeName(r),
                                                 "' with the CPU bf16 step is not built yet: use fp32 or none"));
  }
  return absl::OkStatus();
}

}  // namespace

template <typename F>
CpuGpt<F>::CpuGpt(const GptConfig& config, int B, int T) : config_(config), layout_(config), B_(B), T_(T) {}

template <typename F>
absl::StatusOr<std::unique_ptr<CpuGpt<F>>> CpuGpt<F>::Create(const GptConfig& config, int B, int T,
                                                             bool bf16_gemms, accounting::Recompute recompute) {
  if (auto st = ValidateRunShape(config, B, T); !st.ok()) return st;
  if (auto st = CheckRecompute(config, recompute, bf16_gemms); !st.ok()) return st;
  if (bf16_gemms) {
    if (!std::is_same_v<F, float>) return absl::InvalidArgumentError("bf16 GEMMs need the fp32 model");
    absl::StatusOr<std::string> impl = OneDnnBf16Implementation();
    if (!impl.ok()) return impl.status();
  }
  std::unique_ptr<CpuGpt<F>> m(new CpuGpt<F>(config, B, T));
  m->recompute_ = recompute;
  const int64_t n = m->layout_.num_params();
  m->params_ = AlignedArray<F>(n);
  m->grads_ = AlignedArray<F>(n);
  m->m_ = AlignedArray<F>(n);
  m->v_ = AlignedArray<F>(n);
  const std::vector<ActivationTensor> acts = CpuActivationTensors(config, B, T, recompute);
  int64_t total = 0;
  for (const ActivationTensor& t : acts) total += t.size;
  m->acts_ = AlignedArray<F>(total);
  F* p = m->acts_.data();
  for (const ActivationTensor& t : acts) {
    m->act_[static_cast<int>(t.id)] = p;
    p += t.size;
  }
  if (bf16_gemms) {
    const int64_t BT = static_cast<int64_t>(B) * T, C = config.width;
    m->bf16_ = true;
    m->params_bf16_ = AlignedArray<uint16_t>(n);
    // Per layer the inputs of qkv, attproj (C each), fc (C) and fcproj (F); then lnf's (C).
    m->acts_bf16_ = AlignedArray<uint16_t>(config.layers * m->Bf16LayerStride() + BT * C);
    m->dout_bf16_ = AlignedArray<uint16_t>(
        BT * std::max<int64_t>({config.padded_vocab, int64_t{config.fc_width()}, int64_t{config.qkv_width()}}));
  }
  if (config.positions == PositionKind::kRope) {
    const int64_t half = config.head_size() / 2;
    m->rope_cos_.assign(static_cast<size_t>(T * half), F(0));
    m->rope_sin_.assign(static_cast<size_t>(T * half), F(0));
    rope_table(m->rope_cos_.data(), m->rope_sin_.data(), T, config.head_size(), config.rope_theta);
  }
  m->inputs_.assign(static_cast<size_t>(B) * T, 0);
  m->targets_.assign(static_cast<size_t>(B) * T, 0);
  return m;
}

template <typename F>
typename CpuGpt<F>::LayerActs CpuGpt<F>::LayerActivations(int64_t l) {
  const int64_t B = B_, T = T_, C = config_.width, NH = config_.heads, BT = B * T;
  const int64_t QKV = config_.qkv_width(), FC = config_.fc_width(), Fh = config_.hidden();
  // Layer l's copy of a tensor kept for every layer; the one scratch slot of a recomputed one.
  auto at = [&](ActId id, int64_t size) {
    return act(id) + (ActivationLayersKept(id, config_, recompute_) == 1 ? 0 : l) * size;
  };
  // RMSNorm keeps no mean: its mean pointers are null (and unread).
  auto mean = [&](ActId id) { return config_.norm == NormKind::kLayerNorm ? at(id, BT) : nullptr; };
  LayerActs a;
  a.residual = l == 0 ? act(ActId::kEncoded) : act(ActId::kResidual3) + (l - 1) * BT * C;
  a.ln1 = at(ActId::kLn1, BT * C);
  a.ln1_mean = mean(ActId::kLn1Mean);
  a.ln1_rstd = at(ActId::kLn1Rstd, BT);
  a.qkv = at(ActId::kQkv, BT * QKV);
  a.atty = at(ActId::kAtty, BT * C);
  a.att = at(ActId::kAtt, B * NH * T * T);
  a.residual2 = at(ActId::kResidual2, BT * C);
  a.ln2 = at(ActId::kLn2, BT * C);
  a.ln2_mean = mean(ActId::kLn2Mean);
  a.ln2_rstd = at(ActId::kLn2Rstd, BT);
  a.fch = at(ActId::kFch, BT * FC);
  a.fch_gelu = at(ActId::kFchGelu, BT * Fh);
  a.residual3 = act(ActId::kResidual3) + l * BT * C;
  return a;
}

template <typename F>
typename CpuGpt<F>::LayerBf16 CpuGpt<F>::LayerBf16Inputs(int64_t l) {
  const int64_t BT = static_cast<int64_t>(B_) * T_, C = config_.width;
  uint16_t* base = acts_bf16_.data() + l * Bf16LayerStride();
  return LayerBf16{base, base + BT * C, base + 2 * BT * C, base + 3 * BT * C};
}

template <typename F>
void CpuGpt<F>::LinearForward(F* out, const F* inp, uint16_t* inp_bf16, const F* w, const F* bias, int64_t C,
                              int64_t OC, const char* tag) {
  if constexpr (std::is_same_v<F, float>) {
    if (bf16_) {
      if (inp != nullptr) ConvertToBf16(inp, inp_bf16, static_cast<int64_t>(B_) * T_ * C);
      matmul_forward_bf16(out, inp_bf16, WeightBf16(w), bias, B_, T_, C, OC, tag);
      return;
    }
  }
  matmul_forward(out, inp, w, bias, B_, T_, C, OC, tag);
}

template <typename F>
void CpuGpt<F>::LinearBackward(F* dinp, F* dw, F* dbias, F* dout, const F* inp, const uint16_t* inp_bf16,
                               const F* w, int64_t C, int64_t OC, const char* tag, GradWrite write) {
  if constexpr (std::is_same_v<F, float>) {
    if (bf16_) {
      matmul_backward_bf16(dinp, dw, dbias, dout, inp_bf16, WeightBf16(w), B_, T_, C, OC, dout_bf16_.data(), tag,
                           write);
      return;
    }
  }
  matmul_backward(dinp, dw, dbias, static_cast<const F*>(dout), inp, w, B_, T_, C, OC, tag, write);
}

template <typename F>
void CpuGpt<F>::NormForward(F* out, F* mean, F* rstd, const F* inp, const F* w, const F* b) {
  if (config_.norm == NormKind::kRmsNorm) {
    ScopedOp op(timer_, "rmsnorm_forward");
    rmsnorm_forward(out, rstd, inp, w, B_, T_, config_.width);
  } else {
    ScopedOp op(timer_, "layernorm_forward");
    layernorm_forward(out, mean, rstd, inp, w, b, B_, T_, config_.width);
  }
}

template <typename F>
void CpuGpt<F>::ResidualNormForward(F* residual, F* out, F* mean, F* rstd, const F* inp1, const F* inp2, const F* w,
                                    const F* b) {
  if (config_.norm == NormKind::kRmsNorm) {
    ScopedOp op(timer_, "residual_rmsnorm_forward");
    residual_rmsnorm_forward(residual, out, rstd, inp1, inp2, w, B_, T_, config_.width);
  } else {
    ScopedOp op(timer_, "residual_layernorm_forward");
    residual_layernorm_forward(residual, out, mean, rstd, inp1, inp2, w, b, B_, T_, config_.width);
  }
}

template <typename F>
void CpuGpt<F>::NormBackward(F* dinp, F* dw, F* db, const F* dout, const F* inp, const F* w, const F* mean,
                             const F* rstd, GradWrite write) {
  if (config_.norm == NormKind::kRmsNorm) {
    ScopedOp op(timer_, "rmsnorm_backward");
    rmsnorm_backward(dinp, dw, dout, inp, w, rstd, B_, T_, config_.width, write);
  } else {
    ScopedOp op(timer_, "layernorm_backward");
    layernorm_backward(dinp, dw, db, dout, inp, w, mean, rstd, B_, T_, config_.width, write);
  }
}

template <typename F>
void CpuGpt<F>::MlpForward(int64_t l, const ParamPointers<F>& p, F* proj) {
  const int64_t BT = static_cast<int64_t>(B_) * T_, C = config_.width, Fh = config_.hidden(), FC = config_.fc_width();
  const LayerActs a = LayerActivations(l);
  const LayerBf16 xb = bf16_ ? LayerBf16Inputs(l) : LayerBf16{};
  const bool gelu = config_.mlp == MlpKind::kGelu;
  {
    ScopedOp op(timer_, "matmul_forward/fc");
    LinearForward(a.fch, a.ln2, xb.ln2, p.fcw + l * FC * C, Slice(p.fcb, l * FC), C, FC, "fc");
  }
  if (gelu && recompute_ == accounting::Recompute::kActivation) {
    // The pre-activation stays (the backward recomputes the GeLU from it); the output goes to the
    // one scratch slot.
    ScopedOp op(timer_, "gelu_forward");
    gelu_forward(a.fch_gelu, static_cast<const F*>(a.fch), BT * Fh);
  } else if (gelu) {
    // fch is written over with GeLU's derivative, all the backward needs of it. bf16: the GeLU
    // writes the next GEMM's bf16 input itself (no fp32 copy is read again).
    ScopedOp op(timer_, "gelu_forward");
    if (bf16_) {
      if constexpr (std::is_same_v<F, float>) gelu_forward_saving_grad_bf16(xb.fch_gelu, a.fch, BT * Fh);
    } else {
      gelu_forward_saving_grad(a.fch_gelu, a.fch, BT * Fh);
    }
  } else {
    // silu(gate) * up; fch (gate | up) is kept for the backward.
    ScopedOp op(timer_, "swiglu_forward");
    swiglu_forward(a.fch_gelu, static_cast<const F*>(a.fch), BT, Fh);
  }
  {
    ScopedOp op(timer_, "matmul_forward/fcproj");
    LinearForward(proj, bf16_ && gelu ? nullptr : a.fch_gelu, xb.fch_gelu, p.fcprojw + l * C * Fh,
                  Slice(p.fcprojb, l * C), Fh, C, "fcproj");
  }
}

template <typename F>
void CpuGpt<F>::LayerForward(int64_t l, const ParamPointers<F>& p, F* proj) {
  const int64_t B = B_, T = T_, C = config_.width, NH = config_.heads, NKV = config_.kv_head_count();
  const int64_t QKV = config_.qkv_width(), hd = config_.head_size();
  const LayerActs a = LayerActivations(l);
  const LayerBf16 xb = bf16_ ? LayerBf16Inputs(l) : LayerBf16{};
  {
    ScopedOp op(timer_, "matmul_forward/qkv");
    LinearForward(a.qkv, a.ln1, xb.ln1, p.qkvw + l * QKV * C, Slice(p.qkvb, l * QKV), C, QKV, "qkv");
  }
  if (config_.positions == PositionKind::kRope) {
    ScopedOp op(timer_, "rope_forward");
    rope_forward(a.qkv, rope_cos_.data(), rope_sin_.data(), B, T, NH, NKV, hd);
  }
  {
    ScopedOp op(timer_, "attention_forward");
    attention_forward(a.atty, a.att, static_cast<const F*>(a.qkv), B, T, C, NH, NKV);
  }
  {
    ScopedOp op(timer_, "matmul_forward/attproj");
    LinearForward(proj, a.atty, xb.atty, p.attprojw + l * C * C, Slice(p.attprojb, l * C), C, C, "attproj");
  }
  ResidualNormForward(a.residual2, a.ln2, a.ln2_mean, a.ln2_rstd, a.residual, static_cast<const F*>(proj),
                      p.ln2w + l * C, Slice(p.ln2b, l * C));
  MlpForward(l, p, proj);
}

template <typename F>
void CpuGpt<F>::RecomputeLayer(int64_t l, const ParamPointers<F>& p) {
  const LayerActs a = LayerActivations(l);
  if (recompute_ == accounting::Recompute::kBlock) {
    // The block's forward again from its kept input: the first norm (bit for bit the fused one the
    // forward ran) and the rest as the forward ran it. The MLP's output (proj) is not needed.
    NormForward(a.ln1, a.ln1_mean, a.ln1_rstd, a.residual, p.ln1w + l * config_.width,
                Slice(p.ln1b, l * config_.width));
    LayerForward(l, p, act(ActId::kProj));
  } else if (recompute_ == accounting::Recompute::kAttention) {
    // The attention core again from the kept q, k, v: its scores and its output.
    ScopedOp op(timer_, "attention_forward");
    attention_forward(a.atty, a.att, static_cast<const F*>(a.qkv), B_, T_, config_.width, config_.heads,
                      config_.kv_head_count());
  }
}

template <typename F>
absl::Status CpuGpt<F>::Forward(const Batch& batch) {
  if (auto st = ValidateBatch(config_, B_, T_, batch); !st.ok()) return st;
  inputs_ = batch.inputs;
  targets_ = batch.targets;
  const int64_t B = B_, T = T_, C = config_.width, NH = config_.heads, NKV = config_.kv_head_count();
  const int64_t L = config_.layers, QKV = config_.qkv_width(), hd = config_.head_size();
  const int64_t V = config_.vocab, Vp = config_.padded_vocab, BT = B * T;
  const ParamPointers<F> p = PointParams(layout_, params_.data());
  if (bf16_ && bf16_stale_) {
    // The weights were handed out (InitParams, a copy in, DDP's broadcast) since AdamW last made
    // their bf16 copies.
    ScopedOp op(timer_, "bf16_weight_copy");
    if constexpr (std::is_same_v<F, float>) ConvertToBf16(params_.data(), params_bf16_.data(), num_params());
    bf16_stale_ = false;
  }

  {
    ScopedOp op(timer_, "encoder_forward");
    encoder_forward(act(ActId::kEncoded), inputs_.data(), p.wte, p.wpe, B, T, C);  // wpe: null with RoPE
  }
  for (int64_t l = 0; l < L; ++l) {
    const LayerActs a = LayerActivations(l);
    F* proj = act(ActId::kProj);
    // Later layers' first norm is fused into the residual add that ends the layer below.
    if (l == 0) NormForward(a.ln1, a.ln1_mean, a.ln1_rstd, a.residual, p.ln1w, p.ln1b);
    LayerForward(l, p, proj);
    // residual3 and the norm that reads it next: the layer above's first, or the final one.
    if (l + 1 < L) {
      const LayerActs next = LayerActivations(l + 1);
      ResidualNormForward(a.residual3, next.ln1, next.ln1_mean, next.ln1_rstd, static_cast<const F*>(a.residual2),
                          static_cast<const F*>(proj), p.ln1w + (l + 1) * C, Slice(p.ln1b, (l + 1) * C));
    } else {
      ResidualNormForward(a.residual3, act(ActId::kLnf), act(ActId::kLnfMean), act(ActId::kLnfRstd),
                          static_cast<const F*>(a.residual2), static_cast<const F*>(proj), p.lnfw, p.lnfb);
    }
  }
  {
    ScopedOp op(timer_, "matmul_forward/lm_head");
    LinearForward(act(ActId::kLogits), act(ActId::kLnf), LnfBf16(), p.lm_head, static_cast<const F*>(nullptr), C,
                  Vp, "lm_head");
  }
  {
    ScopedOp op(timer_, "crossentropy_forward");
    crossentropy_forward(act(ActId::kLosses), act(ActId::kLse), act(ActId::kLogits), targets_.data(), B, T, V,
                         Vp);
  }
  double sum = 0;
  const F* losses = act(ActId::kLosses);
  for (int64_t i = 0; i < BT; ++i) sum += losses[i];
  loss_ = sum / static_cast<double>(BT);
  have_forward_ = true;
  return absl::OkStatus();
}

template <typename F>
void CpuGpt<F>::ZeroGrad() {
  // No pass over the ~500 MB of a GPT-2's gradients (25 ms a step on a 26 GB/s machine): the
  // next Backward overwrites them.
  zero_pending_ = true;
}

template <typename F>
F* CpuGpt<F>::grads() {
  if (zero_pending_) {  // read before a Backward: they must read as zero
    zero_pending_ = false;
    F* g = grads_.data();
    const int64_t n = layout_.num_params();
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < n; ++i) g[i] = F(0);
  }
  return grads_.data();
}

template <typename F>
void CpuGpt<F>::GradsReady(std::initializer_list<std::pair<ParamId, int64_t>> tensors) {
  if (!grad_ready_) return;
  std::vector<GradRange> ranges;
  for (const auto& [id, layer] : tensors) {
    const ParamTensorInfo& t = layout_.tensor(id);
    if (t.size == 0) continue;
    if (layer < 0) {
      ranges.push_back({t.offset, t.size});
    } else {
      const int64_t per_layer = t.size / config_.layers;
      ranges.push_back({t.offset + layer * per_layer, per_layer});
    }
  }
  if (!ranges.empty()) grad_ready_(ranges);
}

template <typename F>
void CpuGpt<F>::HeadBackward(const ParamPointers<F>& p, const ParamPointers<F>& g, GradWrite w) {
  const int64_t B = B_, T = T_, C = config_.width, L = config_.layers;
  const int64_t V = config_.vocab, Vp = config_.padded_vocab, BT = B * T;
  F* dlogits = act(ActId::kLogits);
  F* dresidual = act(ActId::kDResidual);
  F* dbtc = act(ActId::kDBtc);
  {
    // bf16: the loss's gradient is written in bf16 for the LM head's GEMMs, the logits left as
    // they are (the fp32 gradient would be written, then read back to be converted: 2 x 51 MB a
    // step for GPT-2 at B*T = 256).
    ScopedOp op(timer_, "crossentropy_softmax_backward");
    if (bf16_) {
      if constexpr (std::is_same_v<F, float>) {
        crossentropy_softmax_backward_bf16(dout_bf16_.data(), dlogits, act(ActId::kLse), targets_.data(),
                                           1.0f / static_cast<float>(BT), B, T, V, Vp);
      }
    } else {
      crossentropy_softmax_backward(dlogits, act(ActId::kLse), targets_.data(), F(1) / static_cast<F>(BT), B, T,
                                    V, Vp);
    }
  }
  {
    ScopedOp op(timer_, "matmul_backward/lm_head");
    LinearBackward(dbtc, g.lm_head, static_cast<F*>(nullptr), bf16_ ? nullptr : dlogits, act(ActId::kLnf), LnfBf16(),
                   p.lm_head, C, Vp, "lm_head.bwd", w);
  }
  F* last = act(ActId::kResidual3) + (L - 1) * BT * C;
  std::memset(dresidual, 0, sizeof(F) * BT * C);
  NormBackward(dresidual, g.lnfw, g.lnfb, dbtc, last, p.lnfw, act(ActId::kLnfMean), act(ActId::kLnfRstd), w);
  // An untied LM head's gradient is final here; a tied one is wte's, which the encoder adds to.
  GradsReady({{ParamId::kLnfw, -1}, {ParamId::kLnfb, -1}, {ParamId::kLmHead, -1}});
}

template <typename F>
void CpuGpt<F>::MlpBackward(int64_t l, const ParamPointers<F>& p, const ParamPointers<F>& g, GradWrite w) {
  const int64_t BT = static_cast<int64_t>(B_) * T_, C = config_.width, Fh = config_.hidden(), FC = config_.fc_width();
  const LayerActs a = LayerActivations(l);
  const LayerBf16 xb = bf16_ ? LayerBf16Inputs(l) : LayerBf16{};
  F* dresidual = act(ActId::kDResidual);  // d(residual3) = d(proj)
  F* dfch = act(ActId::kDFch);
  // The down projection's input gradient: GeLU's in dfch itself (done in place), SwiGLU's apart.
  F* dact = config_.mlp == MlpKind::kGelu ? dfch : act(ActId::kDFchAct);
  const bool recomputed = recompute_ == accounting::Recompute::kActivation;
  if (recomputed) {
    // The activation's output again, from the kept up projection (the down GEMM's weight
    // gradient reads it): the same op on the same input, so the same values.
    ScopedOp op(timer_, config_.mlp == MlpKind::kGelu ? "gelu_forward" : "swiglu_forward");
    if (config_.mlp == MlpKind::kGelu) {
      gelu_forward(a.fch_gelu, static_cast<const F*>(a.fch), BT * Fh);
    } else {
      swiglu_forward(a.fch_gelu, static_cast<const F*>(a.fch), BT, Fh);
    }
  }
  {
    ScopedOp op(timer_, "matmul_backward/fcproj");
    LinearBackward(dact, g.fcprojw + l * C * Fh, Slice(g.fcprojb, l * C), dresidual, a.fch_gelu, xb.fch_gelu,
                   p.fcprojw + l * C * Fh, Fh, C, "fcproj.bwd", w);
  }
  if (config_.mlp == MlpKind::kGelu) {
    ScopedOp op(timer_, "gelu_backward");
    if (recomputed) {
      gelu_backward(dfch, static_cast<const F*>(a.fch), static_cast<const F*>(dfch), BT * Fh);  // fch: x
    } else {
      gelu_backward_saved(dfch, a.fch, dfch, BT * Fh);  // fch holds GeLU's derivative
    }
  } else {
    ScopedOp op(timer_, "swiglu_backward");
    swiglu_backward(dfch, static_cast<const F*>(dact), static_cast<const F*>(a.fch), BT, Fh);
  }
  {
    ScopedOp op(timer_, "matmul_backward/fc");
    LinearBackward(act(ActId::kDBtc), g.fcw + l * FC * C, Slice(g.fcb, l * FC), dfch, a.ln2, xb.ln2,
                   p.fcw + l * FC * C, C, FC, "fc.bwd", w);
  }
}

template <typename F>
void CpuGpt<F>::BlockBackward(int64_t l, const ParamPointers<F>& p, const ParamPointers<F>& g, GradWrite w) {
  const int64_t B = B_, T = T_, C = config_.width, NH = config_.heads, NKV = config_.kv_head_count();
  const int64_t QKV = config_.qkv_width(), hd = config_.head_size();
  F* dresidual = act(ActId::kDResidual);
  F* dbtc = act(ActId::kDBtc);
  F* dqkv = act(ActId::kDQkv);
  F* datt = act(ActId::kDAtt);
  auto [residual, ln1, ln1_mean, ln1_rstd, qkv, atty, att, residual2, ln2, ln2_mean, ln2_rstd, fch, fch_gelu,
        residual3_unused] = LayerActivations(l);
  (void)fch, (void)fch_gelu, (void)residual3_unused;
  const LayerBf16 xb = bf16_ ? LayerBf16Inputs(l) : LayerBf16{};
  // dresidual holds d(residual3): it flows unchanged into d(residual2) and d(proj) of the MLP.
  MlpBackward(l, p, g, w);
  // dresidual becomes d(residual2).
  NormBackward(dresidual, g.ln2w + l * C, Slice(g.ln2b, l * C), dbtc, residual2, p.ln2w + l * C, ln2_mean, ln2_rstd,
               w);
  {
    ScopedOp op(timer_, "matmul_backward/attproj");
    LinearBackward(dbtc, g.attprojw + l * C * C, Slice(g.attprojb, l * C), dresidual, atty, xb.atty,
                   p.attprojw + l * C * C, C, C, "attproj.bwd", w);
  }
  {
    ScopedOp op(timer_, "attention_backward");
    attention_backward(dqkv, datt, static_cast<const F*>(dbtc), static_cast<const F*>(qkv),
                       static_cast<const F*>(att), B, T, C, NH, NKV);
  }
  if (config_.positions == PositionKind::kRope) {
    // The gradient with respect to the rotated q and k, rotated back: q's and k's before RoPE.
    ScopedOp op(timer_, "rope_backward");
    rope_backward(dqkv, rope_cos_.data(), rope_sin_.data(), B, T, NH, NKV, hd);
  }
  {
    ScopedOp op(timer_, "matmul_backward/qkv");
    LinearBackward(dbtc, g.qkvw + l * QKV * C, Slice(g.qkvb, l * QKV), dqkv, ln1, xb.ln1, p.qkvw + l * QKV * C, C,
                   QKV, "qkv.bwd", w);
  }
  // dresidual becomes d(residual) of this layer's input = d(residual3) of the one below.
  NormBackward(dresidual, g.ln1w + l * C, Slice(g.ln1b, l * C), dbtc, residual, p.ln1w + l * C, ln1_mean, ln1_rstd,
               w);
  GradsReady({{ParamId::kLn1w, l},
              {ParamId::kLn1b, l},
              {ParamId::kQkvw, l},
              {ParamId::kQkvb, l},
              {ParamId::kAttprojw, l},
              {ParamId::kAttprojb, l},
              {ParamId::kLn2w, l},
              {ParamId::kLn2b, l},
              {ParamId::kFcw, l},
              {ParamId::kFcb, l},
              {ParamId::kFcprojw, l},
              {ParamId::kFcprojb, l}});
}

template <typename F>
absl::Status CpuGpt<F>::Backward() {
  if (!have_forward_) {
    return absl::FailedPreconditionError("Backward needs a Forward first (each Forward allows one Backward)");
  }
  have_forward_ = false;
  const int64_t B = B_, T = T_, C = config_.width, L = config_.layers, Vp = config_.padded_vocab;
  const ParamPointers<F> p = PointParams(layout_, params_.data());
  const ParamPointers<F> g = PointParams(layout_, grads_.data());
  // Right after ZeroGrad, every parameter gradient's first write goes over the buffer: each
  // tensor below is written exactly once per Backward (the tied wte twice: the LM head's GEMM
  // writes it, the encoder then adds its rows), so no zeroing pass is needed.
  // cpu_model_test checks this against a zeroed buffer filled with NaN before.
  const GradWrite w = zero_pending_ ? GradWrite::kOverwrite : GradWrite::kAccumulate;
  zero_pending_ = false;
  if (w == GradWrite::kOverwrite) {
    // The parts no kernel writes: an untied wte (the encoder only adds to the rows of the tokens
    // seen) and wpe's rows past T (the positions this batch does not reach).
    if (!config_.tie_weights) std::memset(g.wte, 0, sizeof(F) * Vp * C);
    if (g.wpe != nullptr) std::memset(g.wpe + T * C, 0, sizeof(F) * (config_.block - T) * C);
  }
  HeadBackward(p, g, w);
  for (int64_t l = L - 1; l >= 0; --l) {
    RecomputeLayer(l, p);  // what the recompute level did not keep (nothing with kNone)
    BlockBackward(l, p, g, w);
  }
  {
    ScopedOp op(timer_, "encoder_backward");
    encoder_backward(g.wte, g.wpe, act(ActId::kDResidual), inputs_.data(), B, T, C, w);
  }
  GradsReady({{ParamId::kWte, -1}, {ParamId::kWpe, -1}});
  return absl::OkStatus();
}

template <typename F>
absl::Status CpuGpt<F>::Update(const AdamWConfig& opt, int step) {
  if (auto st = ValidateAdamWStep(opt, step); !st.ok()) return st;
  grads();  // a ZeroGrad with no Backward since: AdamW must see zeros
  ScopedOp op(timer_, "adamw_update");
  for (const ParamTensorInfo& t : layout_.tensors()) {
    if (t.size == 0) continue;
    if constexpr (std::is_same_v<F, float>) {
      if (bf16_) {
        // The GEMMs' bf16 weights, in the same pass.
        adamw_update_bf16_copy(params_.data() + t.offset, params_bf16_.data() + t.offset, grads_.data() + t.offset,
                               m_.data() + t.offset, v_.data() + t.offset, t.size, opt.lr, opt.beta1, opt.beta2,
                               opt.eps, t.weight_decay ? opt.weight_decay : 0.0f, step);
        continue;
      }
    }
    adamw_update(params_.data() + t.offset, grads_.data() + t.offset, m_.data() + t.offset,
                 v_.data() + t.offset, t.size, opt.lr, opt.beta1, opt.beta2, opt.eps,
                 t.weight_decay ? opt.weight_decay : 0.0f, step);
  }
  bf16_stale_ = false;  // every tensor's bf16 copy was written above (bf16 mode)
  return absl::OkStatus();
}

template <typename F>
const F* CpuGpt<F>::logits() const {
  return have_forward_ ? act_[static_cast<int>(ActId::kLogits)] : nullptr;
}

template class AlignedArray<uint16_t>;
template class AlignedArray<float>;
template class AlignedArray<double>;
template class CpuGpt<float>;
template class CpuGpt<double>;

}  // namespace model
