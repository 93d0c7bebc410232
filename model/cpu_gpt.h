// The CPU decoder-only transformer, templated on the element type: CpuGpt<float> is the training
// model behind MakeCpuModel (cpu_model.h); CpuGpt<double> runs the very same code in double
// precision for the gradient check. Every family of gpt_config.h runs through it: the config's
// switches pick the norm (LayerNorm or RMSNorm), the positions (a learned table or RoPE), the
// MLP (GeLU or SwiGLU) and the K/V heads. All buffers (parameters, gradients, AdamW m and v,
// activations from activation_layout.h, RoPE's tables) are allocated once in Create.
#ifndef MODEL_CPU_GPT_H_
#define MODEL_CPU_GPT_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "model/activation_layout.h"
#include "model/data/batch.h"
#include "model/gpt_config.h"
#include "model/gpt_model.h"
#include "model/grad_ready.h"
#include "model/grad_write.h"
#include "model/op_timer.h"
#include "model/param_layout.h"

namespace model {

// A zero-initialised, 64-byte aligned array of n elements (first touched in parallel).
template <typename F>
class AlignedArray {
 public:
  AlignedArray() = default;
  explicit AlignedArray(int64_t n);
  F* data() { return data_.get(); }
  const F* data() const { return data_.get(); }
  int64_t size() const { return n_; }

 private:
  struct Free {
    void operator()(F* p) const;
  };
  std::unique_ptr<F, Free> data_;
  int64_t n_ = 0;
};

template <typename F>
class CpuGpt {
 public:
  // Parameters start at zero: call InitParams on params() (float) or copy them in.
  // bf16_gemms (float only): mixed precision. The Linear layers' GEMMs take bf16 operands and
  // accumulate in fp32 on oneDNN (matmul_bf16_cpu.h): bf16 copies of the weights, made in
  // AdamW's pass (or at the next Forward after params() was handed out), and of each Linear's
  // input, converted once in the forward and kept for the backward. Master weights, gradients,
  // AdamW's moments and every other activation stay fp32, so LayerNorm's statistics, the softmax,
  // the attention and the cross-entropy run in fp32. Error when oneDNN cannot run bf16 here.
  // recompute: what the forward keeps for the backward and the backward computes again
  // (activation_layout.h, ActivationLayersKept): kNone keeps every activation; kActivation
  // recomputes the MLP's activation output, kAttention the attention's scores and output, kBlock
  // every layer but its input. The gradients are those of kNone bit for bit: the backward reruns
  // the same ops on the same inputs (cpu_model_test). kFull is accounting's textbook pass, not a
  // model level: refused, as any level with bf16_gemms (not built).
  static absl::StatusOr<std::unique_ptr<CpuGpt>> Create(const GptConfig& config, int B, int T,
                                                        bool bf16_gemms = false,
                                                        accounting::Recompute recompute = accounting::Recompute::kNone);
  accounting::Recompute recompute() const { return recompute_; }

  const GptConfig& config() const { return config_; }
  const ParamLayout& layout() const { return layout_; }
  int B() const { return B_; }
  int T() const { return T_; }
  int64_t num_params() const { return layout_.num_params(); }
  // The fp32 master weights. The mutable form may be written through: a bf16 model remakes its
  // bf16 copies at the next Forward.
  F* params() {
    bf16_stale_ = true;
    return params_.data();
  }
  const F* params() const { return params_.data(); }
  bool bf16_gemms() const { return bf16_; }
  // The gradients; a ZeroGrad not yet followed by a Backward is carried out here first.
  F* grads();
  int64_t activation_elements() const { return acts_.size(); }
  const F* activations() const { return acts_.data(); }

  absl::Status Forward(const Batch& batch);
  double loss() const { return loss_; }  // mean over B*T, summed in double
  // Costs no pass over the gradients: the next Backward writes every gradient over instead of
  // adding to it (GradWrite::kOverwrite); grads() and Update() zero them first if read before.
  void ZeroGrad();
  // Adds this batch's gradients to the buffer, or writes them over it right after ZeroGrad.
  absl::Status Backward();
  absl::Status Update(const AdamWConfig& opt, int step);

  // (B, T, Vp); null after Backward turned them into their gradient, or before any Forward.
  const F* logits() const;
  void SetOpTimer(OpTimer* timer) { timer_ = timer; }
  // Called during Backward as groups of gradients become final (grad_ready.h); nullptr stops.
  void SetGradReadyHook(GradReadyHook hook) { grad_ready_ = std::move(hook); }

 private:
  // The block's norm, the config's kind (LayerNorm with its mean and bias, or RMSNorm), on (B, T, C):
  // alone, after a residual add (residual = inp1 + inp2), and backward.
  void NormForward(F* out, F* mean, F* rstd, const F* inp, const F* w, const F* b);
  void ResidualNormForward(F* residual, F* out, F* mean, F* rstd, const F* inp1, const F* inp2, const F* w,
                           const F* b);
  void NormBackward(F* dinp, F* dw, F* db, const F* dout, const F* inp, const F* w, const F* mean, const F* rstd,
                    GradWrite write);
  // Layer l's forward from its first norm's output (ln1) to proj (the MLP's output), without the
  // residual add after it; and what the recompute level did not keep of layer l, again, before
  // its backward (kBlock: the first norm and LayerForward; kAttention: the attention core).
  void LayerForward(int64_t l, const ParamPointers<F>& p, F* proj);
  void RecomputeLayer(int64_t l, const ParamPointers<F>& p);
  // Layer l's MLP from ln2 to proj (the down projection's output), and back from d(proj) (in
  // kDResidual) to d(ln2) (in kDBtc): the up GEMM, GeLU or SwiGLU, the down GEMM.
  void MlpForward(int64_t l, const ParamPointers<F>& p, F* proj);
  void MlpBackward(int64_t l, const ParamPointers<F>& p, const ParamPointers<F>& g, GradWrite w);
  // Tells the hook (if any) that these tensors' gradients are final: layer >= 0 takes that
  // layer's slice of a tensor stacked over layers, -1 the whole tensor; absent tensors skipped.
  void GradsReady(std::initializer_list<std::pair<ParamId, int64_t>> tensors);
  CpuGpt(const GptConfig& config, int B, int T);
  F* act(ActId id) { return act_[static_cast<int>(id)]; }
  // Layer l's slices of the saved activations: Forward writes them, Backward reads them.
  struct LayerActs {
    F *residual, *ln1, *ln1_mean, *ln1_rstd, *qkv, *atty, *att, *residual2, *ln2, *ln2_mean, *ln2_rstd, *fch,
        *fch_gelu, *residual3;
  };
  LayerActs LayerActivations(int64_t l);
  // The bf16 copies of layer l's Linear inputs (bf16 mode): ln1, atty, ln2 (C each), fch_gelu (F).
  struct LayerBf16 {
    uint16_t *ln1, *atty, *ln2, *fch_gelu;
  };
  LayerBf16 LayerBf16Inputs(int64_t l);
  int64_t Bf16LayerStride() const { return static_cast<int64_t>(B_) * T_ * (3 * config_.width + config_.hidden()); }
  uint16_t* LnfBf16() { return bf16_ ? acts_bf16_.data() + config_.layers * Bf16LayerStride() : nullptr; }
  uint16_t* WeightBf16(const F* w) { return params_bf16_.data() + (w - params_.data()); }
  // A Linear layer in the model's precision: fp32 (matmul_cpu.h), or bf16 GEMMs with `inp`
  // converted into inp_bf16 (forward) and read from it (backward). In bf16 mode a nullptr `inp`
  // (forward) or `dout` (backward) means the op before wrote the bf16 form already (inp_bf16,
  // dout_bf16_).
  void LinearForward(F* out, const F* inp, uint16_t* inp_bf16, const F* w, const F* bias, int64_t C, int64_t OC,
                     const char* tag);
  void LinearBackward(F* dinp, F* dw, F* dbias, F* dout, const F* inp, const uint16_t* inp_bf16, const F* w,
                      int64_t C, int64_t OC, const char* tag, GradWrite write);
  // Backward's two parts: the loss, LM head and final LayerNorm (leaving d(residual3) of the last
  // layer in kDResidual), and block l (turning it into d(residual3) of the layer below).
  void HeadBackward(const ParamPointers<F>& p, const ParamPointers<F>& g, GradWrite w);
  void BlockBackward(int64_t l, const ParamPointers<F>& p, const ParamPointers<F>& g, GradWrite w);

  GptConfig config_;
  ParamLayout layout_;
  int B_, T_;
  accounting::Recompute recompute_ = accounting::Recompute::kNone;
  AlignedArray<F> params_, grads_, m_, v_, acts_;
  bool bf16_ = false;
  bool bf16_stale_ = true;  // params_bf16_ does not hold the current params_
  AlignedArray<uint16_t> params_bf16_, acts_bf16_, dout_bf16_;
  std::vector<F> rope_cos_, rope_sin_;  // RoPE's tables (T, hd / 2) (rope_cpu.h); empty otherwise
  F* act_[kNumActivationTensors] = {};
  std::vector<int32_t> inputs_, targets_;
  double loss_ = 0;
  bool have_forward_ = false;  // a Forward whose logits are intact
  bool zero_pending_ = false;  // ZeroGrad was called; no Backward or read of the grads since
  OpTimer* timer_ = nullptr;
  GradReadyHook grad_ready_;
};

extern template class CpuGpt<float>;
extern template class CpuGpt<double>;

}  // namespace model

#endif  // MODEL_CPU_GPT_H_
