// The CUDA decoder (GPT-2, Llama): forward, backward and AdamW as launcher calls, one layer at a
// time, with the same op names and order as the CPU model (model/cpu_gpt.cc), each op chosen by
// the config's switches.
#include "model/cuda/cuda_gpt.h"

#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "model/cuda/adamw_cuda.h"
#include "model/cuda/attention_cuda.h"
#include "model/cuda/attention_cudnn.h"
#include "model/cuda/bf16.h"
#include "model/cuda/convert_cuda.h"
#include "model/cuda/crossentropy_cuda.h"
#include "model/cuda/cuda_memory.h"
#include "model/cuda/device_api.h"
#include "model/cuda/encoder_cuda.h"
#include "model/cuda/gelu_cuda.h"
#include "model/cuda/gemm_spec.h"
#include "model/cuda/graph_check.h"
#include "model/cuda/launch_config.h"
#include "model/cuda/layernorm_cuda.h"
#include "model/cuda/matmul_cuda.h"
#include "model/cuda/residual_cuda.h"
#include "model/cuda/rmsnorm_cuda.h"
#include "model/cuda/rope_cuda.h"
#include "model/cuda/swiglu_cuda.h"
#include "model/op_timer.h"
#include "model/param_init.h"
#include "model/param_layout.h"

namespace model {
namespace cuda {

namespace {

class CudaGptBase : public GptModel {
 public:
  virtual std::string Describe() const = 0;
  virtual const std::string& AttentionChoice() const = 0;
  virtual const CudaMemoryPlan& MemoryPlan() const = 0;
};

template <typename S>
class CudaGpt final : public CudaGptBase {
 public:
  CudaGpt(const GptConfig& config, int B, int T, const CudaGptOptions& options,
          std::unique_ptr<GemmRunner> gemm, CudaMemoryPlan plan, std::unique_ptr<CudnnAttention> cudnn)
      : cudnn_(std::move(cudnn)),
        config_(config),
        layout_(config),
        B_(B),
        T_(T),
        options_(options),
        tf32_(options.precision == CudaPrecision::kTf32),
        gemm_(std::move(gemm)),
        plan_(std::move(plan)),
        rms_(config.norm == NormKind::kRmsNorm),
        rope_(config.positions == PositionKind::kRope) {}

  ~CudaGpt() override { DeviceFree(arena_); }

  absl::Status Init(uint64_t seed);

  std::string_view device() const override { return "cuda"; }
  const GptConfig& config() const override { return config_; }
  int batch_size() const override { return B_; }
  int seq_len() const override { return T_; }
  absl::Status Forward(const Batch& batch) override;
  float loss() override;
  void ZeroGrad() override;
  absl::Status Backward() override;
  absl::Status Update(const AdamWConfig& opt, int step) override;
  absl::Status TrainStep(const Batch& batch, const AdamWConfig& opt, int step) override;
  void Synchronize() override { DeviceSynchronize(); }
  int64_t num_params() const override { return layout_.num_params(); }
  float* params_data() override { return Ptr<float>(CudaTensor::kParams); }
  float* grads_data() override { return Ptr<float>(CudaTensor::kGrads); }
  void SetOpTimer(OpTimer* timer) override { timer_ = timer; }
  absl::Status CopyParamsToHost(std::vector<float>* out) override {
    return CopyParamSizedToHost(CudaTensor::kParams, out);
  }
  absl::Status CopyParamsFromHost(absl::Span<const float> in) override;
  absl::Status CopyGradsToHost(std::vector<float>* out) override {
    return CopyParamSizedToHost(CudaTensor::kGrads, out);
  }
  absl::Status CopyLogitsToHost(std::vector<float>* out) override;
  std::string Describe() const override;
  std::string DescribeAttention() const {
    if (cudnn_) return "cuDNN fused flash attention (causal, bf16)";
    return absl::StrCat("block-causal attention kernels (query blocks of ",
                        AttentionBlock(T_, options_.attention_block), ")");
  }
  const std::string& AttentionChoice() const override { return options_.attention_choice; }
  const CudaMemoryPlan& MemoryPlan() const override { return plan_; }

 private:
  template <typename X>
  X* Ptr(CudaTensor id, int64_t layer = 0) const {
    const PlannedTensor& t = plan_.tensor(id);
    if (t.layers == 0) return nullptr;
    // A tensor kept once (not per layer, or one that the recompute level reruns): every layer's
    // copy is the one slot.
    const int64_t slot = t.layers == 1 ? 0 : layer;
    return reinterpret_cast<X*>(static_cast<char*>(arena_) + t.offset + slot * t.layer_stride);
  }
  S* Act(CudaTensor id, int64_t layer = 0) const { return Ptr<S>(id, layer); }
  // Layer l's activations that its forward writes and its backward reads (the attention's own
  // are AttentionForward's).
  struct LayerActivations {
    S* residual;  // the layer's input: the encoder's output, or layer l - 1's residual3
    S* ln1;
    S* atty;
    S* residual2;
    S* ln2;
    S* fch;
    S* fch_gelu;
    S* residual3;  // the layer's output
  };
  LayerActivations Activations(int64_t l) const {
    return {l == 0 ? Act(CudaTensor::kEncoded) : Act(CudaTensor::kResidual3, l - 1),
            Act(CudaTensor::kLn1, l),
            Act(CudaTensor::kAtty, l),
            Act(CudaTensor::kResidual2, l),
            Act(CudaTensor::kLn2, l),
            Act(CudaTensor::kFch, l),
            Act(CudaTensor::kFchGelu, l),
            Act(CudaTensor::kResidual3, l)};
  }
  // The weights the matmuls read: the fp32 master copy, or its bf16 copy.
  S* Weights() const {
    if constexpr (std::is_same<S, Bf16>::value) {
      return Ptr<Bf16>(CudaTensor::kParamsBf16);
    } else {
      return Ptr<float>(CudaTensor::kParams);
    }
  }
  void RefreshWeightCopy();
  // The step's inputs, written by the host (synchronous copies; never inside a capture).
  void UploadBatch(const Batch& batch);
  void UploadAdamWArgs(const AdamWConfig& opt, int step);
  // The device work of each phase: launches, GEMMs and memsets only, so that a graph capture
  // records all of it (no host synchronisation, no allocation, no step-dependent argument).
  absl::Status ForwardKernels();
  absl::Status ForwardLayer(int64_t l, const ParamPointers<S>& w);
  void ZeroGradKernels();
  absl::Status BackwardKernels();
  void UpdateKernels();
  // Backward's steps: the loss, LM head and final norm; then one block, from the top.
  void BackwardHead(const ParamPointers<S>& w, const ParamPointers<float>& g);
  absl::Status BackwardLayer(int64_t l, const ParamPointers<S>& w, const ParamPointers<float>& g);
  // What options_.recompute did not keep of layer l, rerun before its backward (nothing with kNone).
  absl::Status RecomputeLayer(int64_t l, const ParamPointers<S>& w);
  // The config's norm (LayerNorm with its mean and bias, or RMSNorm: mean and bias null) on
  // (B, T, C), forward and backward (dinp +=, dweight and dbias +=); NormOp names it for the timer.
  const char* NormOp(bool backward) const;
  void NormForward(S* out, float* mean, float* rstd, const S* inp, const S* weight, const S* bias);
  void NormBackward(S* dinp, float* dweight, float* dbias, const S* dout, const S* inp, const S* weight,
                    const float* mean, const float* rstd);
  // Layer l's MLP from ln2 to fch_gelu (the up GEMM, then GeLU, fused or not, or SwiGLU), and back
  // from d(fch_gelu)'s source, d(residual3) in kDResidual, to d(ln2) in kDBtc (the down GEMM's
  // backward included).
  void MlpForward(int64_t l, const ParamPointers<S>& w, const LayerActivations& act);
  void MlpBackward(int64_t l, const ParamPointers<S>& w, const ParamPointers<float>& g,
                   const LayerActivations& act);
  // RoPE on q and k of a qkv (or its gradient) buffer, when the config's positions are RoPE's.
  void Rope(S* qkv, bool backward);
  // Layer l's attention: cuDNN's (reading q, k, v in place from the layer's qkv, kept in kQkvr)
  // or the kernels' (permuting them out of the scratch qkv into kQkvr; qkv null: from kQkvr as
  // it is, the attention recompute).
  absl::Status AttentionForward(int64_t l, S* atty, const S* qkv);
  absl::Status AttentionBackward(int64_t l, S* dqkv, const S* datty);
  // --cuda_graph (cuda_gpt.h): the capture with its one-time check, and the capture itself.
  absl::Status CaptureCheckedStep(const Batch& batch, const AdamWConfig& opt, int step);
  absl::Status CaptureStep();
  bool DecideGeluFusion();
  bool DecideResidualFusion();
  // out = residual + inp @ weight^T + bias: one GEMM with the residual as its C input, or the
  // GEMM into kProj and the residual kernel.
  // op: the timer's name for the matmul ("matmul_forward/attproj"); tag: the FLOP counter's.
  void ProjectionWithResidual(S* out, const S* inp, const S* weight, const S* bias, const S* residual,
                              int64_t C, int64_t OC, const char* op, const char* tag);
  // An fp32 tensor of num_params() values (kParams, kGrads) into out; waits for the device.
  absl::Status CopyParamSizedToHost(CudaTensor id, std::vector<float>* out);
  // Layer l's Linear backward (weights (OC, C) and biases (OC) per layer, from the base pointers
  // weight, dweight, dbias): d(inp) into dinp, the layer's weight and bias gradients, from dout.
  // gelu_pre: the pre-GeLU input when the GeLU backward is fused into this GEMM, else null.
  // op_name: the timer's name ("matmul_backward/fc"); tag: the FLOP counter's.
  void LinearBackward(int64_t l, S* dinp, float* dweight, float* dbias, const S* dout, const S* inp,
                      const S* weight, const S* gelu_pre, int64_t C, int64_t OC, const char* op_name,
                      const char* tag);

  std::unique_ptr<CudnnAttention> cudnn_;  // null: the kernels
  GptConfig config_;
  ParamLayout layout_;
  int B_, T_;
  CudaGptOptions options_;
  bool tf32_;
  std::unique_ptr<GemmRunner> gemm_;
  CudaMemoryPlan plan_;
  bool rms_;   // RMSNorm (else LayerNorm)
  bool rope_;  // RoPE (else the learned position table)
  void* arena_ = nullptr;
  bool fuse_gelu_ = false;
  bool fuse_residual_ = false;
  bool have_forward_ = false;  // a Forward whose logits are intact
  bool have_loss_ = false;
  float loss_ = 0;
  OpTimer* timer_ = nullptr;
  int64_t uncaptured_updates_ = 0;  // Update calls run (a capture needs one first)
  DeviceGraphPtr graph_;            // the captured train step (options_.cuda_graph)
};

template <typename S>
absl::Status CudaGpt<S>::Init(uint64_t seed) {
  const std::string error = DeviceAlloc(&arena_, plan_.arena_bytes);
  if (!error.empty()) {
    return absl::InternalError(
        absl::StrCat("allocating the CUDA model's ", FormatBytes(plan_.arena_bytes), ": ", error));
  }
  const int64_t n = layout_.num_params();
  std::vector<float> host(static_cast<size_t>(n));
  InitParams(config_, layout_, seed, host.data());
  CopyToDevice(Ptr<float>(CudaTensor::kParams), host.data(), n * 4);
  RefreshWeightCopy();
  if (rope_) {
    // RoPE's tables, as the CPU model's (computed in double on the host, rounded once).
    const int64_t half = config_.head_size() / 2;
    std::vector<float> cos(static_cast<size_t>(T_ * half)), sin(cos.size());
    RopeTablesHost(cos.data(), sin.data(), T_, config_.head_size(), config_.rope_theta);
    CopyToDevice(Ptr<float>(CudaTensor::kRopeCos), cos.data(), T_ * half * 4);
    CopyToDevice(Ptr<float>(CudaTensor::kRopeSin), sin.data(), T_ * half * 4);
  }
  MemsetAsync(Ptr<float>(CudaTensor::kGrads), 0, n * 4);
  MemsetAsync(Ptr<float>(CudaTensor::kAdamM), 0, n * 4);
  MemsetAsync(Ptr<float>(CudaTensor::kAdamV), 0, n * 4);
  fuse_gelu_ = options_.fuse_gelu && DecideGeluFusion();
  fuse_residual_ = options_.fuse_residual && DecideResidualFusion();
  DeviceSynchronize();
  return absl::OkStatus();
}

template <typename S>
void CudaGpt<S>::RefreshWeightCopy() {
  if constexpr (std::is_same<S, Bf16>::value) {
    convert_to_bf16(Ptr<Bf16>(CudaTensor::kParamsBf16), Ptr<float>(CudaTensor::kParams),
                    layout_.num_params());
  }
}

// The fused GeLU needs both epilogues for the planned fc shapes (layer 0's pointers stand for
// all: every layer slice has the same alignment).
template <typename S>
bool CudaGpt<S>::DecideGeluFusion() {
  if (config_.mlp != MlpKind::kGelu) return false;  // the epilogue is GeLU's only
  const int64_t BT = int64_t{B_} * T_, C = config_.width, F = config_.hidden();
  const ParamPointers<S> w = PointParams(layout_, Weights());
  const GemmCall fwd = LinearForward(Act(CudaTensor::kFchGelu), Act(CudaTensor::kLn2), w.fcw, w.fcb, nullptr,
                                     Act(CudaTensor::kFch), BT, C, F, StorageOf<S>(), tf32_);
  const GemmCall bwd = LinearBackwardInput(Act(CudaTensor::kDFch), Act(CudaTensor::kDResidual), w.fcprojw,
                                           Act(CudaTensor::kFch), BT, F, C, StorageOf<S>(), tf32_);
  return gemm_->Supports(fwd.spec, fwd.ptrs) && gemm_->Supports(bwd.spec, bwd.ptrs);
}

template <typename S>
bool CudaGpt<S>::DecideResidualFusion() {
  const int64_t BT = int64_t{B_} * T_, C = config_.width, F = config_.hidden();
  const ParamPointers<S> w = PointParams(layout_, Weights());
  const GemmCall attproj =
      LinearForward(Act(CudaTensor::kResidual2), Act(CudaTensor::kAtty), w.attprojw, w.attprojb,
                    Act(CudaTensor::kEncoded), nullptr, BT, C, C, StorageOf<S>(), tf32_);
  const GemmCall fcproj =
      LinearForward(Act(CudaTensor::kResidual3), Act(CudaTensor::kFchGelu), w.fcprojw, w.fcprojb,
                    Act(CudaTensor::kResidual2), nullptr, BT, F, C, StorageOf<S>(), tf32_);
  return gemm_->Supports(attproj.spec, attproj.ptrs) && gemm_->Supports(fcproj.spec, fcproj.ptrs);
}

template <typename S>
void CudaGpt<S>::ProjectionWithResidual(S* out, const S* inp, const S* weight, const S* bias,
                                        const S* residual, int64_t C, int64_t OC, const char* op_name,
                                        const char* tag) {
  const int64_t B = B_, T = T_;
  if (fuse_residual_) {
    ScopedOp op(timer_, op_name);
    matmul_forward(out, inp, weight, bias, residual, static_cast<S*>(nullptr), B, T, C, OC, gemm_.get(),
                   tf32_, tag);
    return;
  }
  S* proj = Act(CudaTensor::kProj);
  {
    ScopedOp op(timer_, op_name);
    matmul_forward(proj, inp, weight, bias, static_cast<const S*>(nullptr), static_cast<S*>(nullptr), B, T, C,
                   OC, gemm_.get(), tf32_, tag);
  }
  ScopedOp op(timer_, "residual_forward");
  residual_forward(out, residual, static_cast<const S*>(proj), B * T * OC);
}

template <typename S>
void CudaGpt<S>::LinearBackward(int64_t l, S* dinp, float* dweight, float* dbias, const S* dout, const S* inp,
                                const S* weight, const S* gelu_pre, int64_t C, int64_t OC,
                                const char* op_name, const char* tag) {
  ScopedOp op(timer_, op_name);
  matmul_backward(dinp, dweight + l * OC * C, Slice(dbias, l * OC), dout, inp, weight + l * OC * C, gelu_pre,
                  int64_t{B_}, int64_t{T_}, C, OC, gemm_.get(), tf32_, tag);
}

template <typename S>
void CudaGpt<S>::UploadBatch(const Batch& batch) {
  const int64_t BT = int64_t{B_} * T_;
  CopyToDevice(Ptr<int32_t>(CudaTensor::kInputs), batch.inputs.data(), BT * 4);
  CopyToDevice(Ptr<int32_t>(CudaTensor::kTargets), batch.targets.data(), BT * 4);
}

template <typename S>
void CudaGpt<S>::UploadAdamWArgs(const AdamWConfig& opt, int step) {
  static_assert(sizeof(AdamWStepArgs) <= kAdamWArgsFloats * sizeof(float), "kAdamWArgs too small");
  const AdamWStepArgs args = MakeAdamWStepArgs(opt.lr, opt.beta1, opt.beta2, opt.eps, opt.weight_decay, step);
  CopyToDevice(Ptr<float>(CudaTensor::kAdamWArgs), &args, sizeof(args));
}

template <typename S>
absl::Status CudaGpt<S>::Forward(const Batch& batch) {
  if (auto st = ValidateBatch(config_, B_, T_, batch); !st.ok()) return st;
  UploadBatch(batch);
  have_loss_ = false;
  if (auto st = ForwardKernels(); !st.ok()) return st;
  have_forward_ = true;
  return absl::OkStatus();
}

template <typename S>
const char* CudaGpt<S>::NormOp(bool backward) const {
  if (rms_) return backward ? "rmsnorm_backward" : "rmsnorm_forward";
  return backward ? "layernorm_backward" : "layernorm_forward";
}

template <typename S>
void CudaGpt<S>::NormForward(S* out, float* mean, float* rstd, const S* inp, const S* weight, const S* bias) {
  const int64_t B = B_, T = T_, C = config_.width;
  if (rms_) {
    rmsnorm_forward(out, rstd, inp, weight, B, T, C);
  } else {
    layernorm_forward(out, mean, rstd, inp, weight, bias, B, T, C);
  }
}

template <typename S>
void CudaGpt<S>::NormBackward(S* dinp, float* dweight, float* dbias, const S* dout, const S* inp,
                              const S* weight, const float* mean, const float* rstd) {
  const int64_t B = B_, T = T_, C = config_.width;
  if (rms_) {
    rmsnorm_backward(dinp, dweight, dout, inp, weight, rstd, B, T, C);
  } else {
    layernorm_backward(dinp, dweight, dbias, dout, inp, weight, mean, rstd, B, T, C);
  }
}

template <typename S>
void CudaGpt<S>::Rope(S* qkv, bool backward) {
  if (!rope_) return;
  const int64_t B = B_, T = T_, NH = config_.heads, NKV = config_.kv_head_count(), hd = config_.head_size();
  const float* cos = Ptr<float>(CudaTensor::kRopeCos);
  const float* sin = Ptr<float>(CudaTensor::kRopeSin);
  if (backward) {
    // The gradient with respect to the rotated q and k, rotated back: q's and k's before RoPE.
    ScopedOp op(timer_, "rope_backward");
    rope_backward(qkv, cos, sin, B, T, NH, NKV, hd);
  } else {
    ScopedOp op(timer_, "rope_forward");
    rope_forward(qkv, cos, sin, B, T, NH, NKV, hd);
  }
}

template <typename S>
void CudaGpt<S>::MlpForward(int64_t l, const ParamPointers<S>& w, const LayerActivations& act) {
  const int64_t B = B_, T = T_, C = config_.width, BT = B * T, F = config_.hidden(), FC = config_.fc_width();
  GemmRunner* gemm = gemm_.get();
  {
    ScopedOp op(timer_, "matmul_forward/fc");
    if (fuse_gelu_) {
      // fch_gelu = gelu(ln2 @ fcw^T + fcb), and fch = its input, in one GEMM.
      matmul_forward(act.fch_gelu, act.ln2, w.fcw + l * FC * C, Slice(w.fcb, l * FC),
                     static_cast<const S*>(nullptr), act.fch, B, T, C, FC, gemm, tf32_, "fc");
    } else {
      matmul_forward(act.fch, act.ln2, w.fcw + l * FC * C, Slice(w.fcb, l * FC),
                     static_cast<const S*>(nullptr), static_cast<S*>(nullptr), B, T, C, FC, gemm, tf32_,
                     "fc");
    }
  }
  if (config_.mlp == MlpKind::kSwiglu) {
    // silu(gate) * up; fch (gate | up) is kept for the backward.
    ScopedOp op(timer_, "swiglu_forward");
    swiglu_forward(act.fch_gelu, static_cast<const S*>(act.fch), BT, F);
  } else if (!fuse_gelu_) {
    ScopedOp op(timer_, "gelu_forward");
    gelu_forward(act.fch_gelu, act.fch, BT * F);
  }
}

template <typename S>
absl::Status CudaGpt<S>::ForwardLayer(int64_t l, const ParamPointers<S>& w) {
  const int64_t B = B_, T = T_, C = config_.width, QKV = config_.qkv_width(), F = config_.hidden();
  GemmRunner* gemm = gemm_.get();
  const LayerActivations act = Activations(l);
  S* qkv = cudnn_ ? Act(CudaTensor::kQkvr, l) : Act(CudaTensor::kQkv);  // cuDNN keeps it for backward
  {
    ScopedOp op(timer_, NormOp(false));
    NormForward(act.ln1, Ptr<float>(CudaTensor::kLn1Mean, l), Ptr<float>(CudaTensor::kLn1Rstd, l),
                act.residual, w.ln1w + l * C, Slice(w.ln1b, l * C));
  }
  {
    ScopedOp op(timer_, "matmul_forward/qkv");
    matmul_forward(qkv, act.ln1, w.qkvw + l * QKV * C, Slice(w.qkvb, l * QKV), static_cast<const S*>(nullptr),
                   static_cast<S*>(nullptr), B, T, C, QKV, gemm, tf32_, "qkv");
  }
  Rope(qkv, /*backward=*/false);
  {
    ScopedOp op(timer_, "attention_forward");
    if (auto st = AttentionForward(l, act.atty, qkv); !st.ok()) return st;
  }
  // residual2 = residual + atty @ attprojw^T + attprojb
  ProjectionWithResidual(act.residual2, act.atty, w.attprojw + l * C * C, Slice(w.attprojb, l * C),
                         act.residual, C, C, "matmul_forward/attproj", "attproj");
  {
    ScopedOp op(timer_, NormOp(false));
    NormForward(act.ln2, Ptr<float>(CudaTensor::kLn2Mean, l), Ptr<float>(CudaTensor::kLn2Rstd, l),
                act.residual2, w.ln2w + l * C, Slice(w.ln2b, l * C));
  }
  MlpForward(l, w, act);
  // residual3 = residual2 + fch_gelu @ fcprojw^T + fcprojb
  ProjectionWithResidual(act.residual3, act.fch_gelu, w.fcprojw + l * C * F, Slice(w.fcprojb, l * C),
                         act.residual2, F, C, "matmul_forward/fcproj", "fcproj");
  return absl::OkStatus();
}

template <typename S>
absl::Status CudaGpt<S>::ForwardKernels() {
  const int64_t B = B_, T = T_, C = config_.width, L = config_.layers;
  const int64_t V = config_.vocab, Vp = config_.padded_vocab;
  const ParamPointers<S> w = PointParams(layout_, Weights());
  {
    ScopedOp op(timer_, "encoder_forward");  // wpe: null with RoPE
    encoder_forward(Act(CudaTensor::kEncoded), Ptr<int32_t>(CudaTensor::kInputs), w.wte, w.wpe, B, T, C);
  }
  for (int64_t l = 0; l < L; ++l) {
    if (auto st = ForwardLayer(l, w); !st.ok()) return st;
  }
  S* last = Act(CudaTensor::kResidual3, L - 1);
  {
    ScopedOp op(timer_, NormOp(false));
    NormForward(Act(CudaTensor::kLnf), Ptr<float>(CudaTensor::kLnfMean), Ptr<float>(CudaTensor::kLnfRstd),
                last, w.lnfw, w.lnfb);
  }
  {
    ScopedOp op(timer_, "matmul_forward/lm_head");
    matmul_forward(Act(CudaTensor::kLogits), Act(CudaTensor::kLnf), w.lm_head, static_cast<const S*>(nullptr),
                   static_cast<const S*>(nullptr), static_cast<S*>(nullptr), B, T, C, Vp, gemm_.get(), tf32_,
                   "lm_head");
  }
  {
    ScopedOp op(timer_, "crossentropy_forward");
    crossentropy_forward(Ptr<float>(CudaTensor::kLosses), Ptr<float>(CudaTensor::kLse),
                         Act(CudaTensor::kLogits), Ptr<int32_t>(CudaTensor::kTargets), B, T, V, Vp);
  }
  return absl::OkStatus();
}

template <typename S>
float CudaGpt<S>::loss() {
  if (!have_loss_) {
    const int64_t BT = int64_t{B_} * T_;
    std::vector<float> losses(static_cast<size_t>(BT));
    CopyToHost(losses.data(), Ptr<float>(CudaTensor::kLosses), BT * 4);  // waits for Forward
    double sum = 0;
    for (float x : losses) sum += x;
    loss_ = static_cast<float>(sum / static_cast<double>(BT));
    have_loss_ = true;
  }
  return loss_;
}

template <typename S>
void CudaGpt<S>::ZeroGrad() {
  ZeroGradKernels();
}

template <typename S>
void CudaGpt<S>::ZeroGradKernels() {
  ScopedOp op(timer_, "zero_grad");
  MemsetAsync(Ptr<float>(CudaTensor::kGrads), 0, layout_.num_params() * 4);
}

template <typename S>
void CudaGpt<S>::BackwardHead(const ParamPointers<S>& w, const ParamPointers<float>& g) {
  const int64_t B = B_, T = T_, C = config_.width, L = config_.layers;
  const int64_t V = config_.vocab, Vp = config_.padded_vocab, BT = B * T;
  GemmRunner* gemm = gemm_.get();
  S* dlogits = Act(CudaTensor::kLogits);
  S* dresidual = Act(CudaTensor::kDResidual);
  S* dbtc = Act(CudaTensor::kDBtc);
  {
    ScopedOp op(timer_, "crossentropy_softmax_backward");
    crossentropy_softmax_backward(dlogits, Ptr<float>(CudaTensor::kLse), Ptr<int32_t>(CudaTensor::kTargets),
                                  1.0f / static_cast<float>(BT), B, T, V, Vp);
  }
  {
    ScopedOp op(timer_, "matmul_backward/lm_head");
    matmul_backward(dbtc, g.lm_head, static_cast<float*>(nullptr), dlogits, Act(CudaTensor::kLnf), w.lm_head,
                    static_cast<const S*>(nullptr), B, T, C, Vp, gemm, tf32_, "lm_head.bwd");
  }
  S* last = Act(CudaTensor::kResidual3, L - 1);
  {
    ScopedOp op(timer_, NormOp(true));
    MemsetAsync(dresidual, 0, BT * C * static_cast<int64_t>(sizeof(S)));
    NormBackward(dresidual, g.lnfw, g.lnfb, dbtc, last, w.lnfw, Ptr<float>(CudaTensor::kLnfMean),
                 Ptr<float>(CudaTensor::kLnfRstd));
  }
}

template <typename S>
absl::Status CudaGpt<S>::AttentionForward(int64_t l, S* atty, const S* qkv) {
  if constexpr (std::is_same<S, Bf16>::value) {
    if (cudnn_) {
      return cudnn_->Forward(atty, Ptr<float>(CudaTensor::kAttStats, l), qkv,
                             Ptr<char>(CudaTensor::kCudnnWorkspace));
    }
  }
  attention_forward(atty, Act(CudaTensor::kQkvr, l), Act(CudaTensor::kAtt, l), Act(CudaTensor::kVaccum), qkv,
                    int64_t{B_}, int64_t{T_}, int64_t{config_.width}, int64_t{config_.heads},
                    int64_t{config_.kv_head_count()}, gemm_.get(), tf32_, options_.attention_block);
  return absl::OkStatus();
}

template <typename S>
absl::Status CudaGpt<S>::AttentionBackward(int64_t l, S* dqkv, const S* datty) {
  if constexpr (std::is_same<S, Bf16>::value) {
    if (cudnn_) {
      return cudnn_->Backward(dqkv, datty, Act(CudaTensor::kQkvr, l), Act(CudaTensor::kAtty, l),
                              Ptr<float>(CudaTensor::kAttStats, l), Ptr<char>(CudaTensor::kCudnnWorkspace));
    }
  }
  attention_backward(dqkv, Act(CudaTensor::kDQkvr), Act(CudaTensor::kDAtt), Act(CudaTensor::kDVaccum), datty,
                     static_cast<const S*>(Act(CudaTensor::kQkvr, l)),
                     static_cast<const S*>(Act(CudaTensor::kAtt, l)), int64_t{B_}, int64_t{T_},
                     int64_t{config_.width}, int64_t{config_.heads}, int64_t{config_.kv_head_count()},
                     gemm_.get(), tf32_, options_.attention_block);
  return absl::OkStatus();
}

template <typename S>
void CudaGpt<S>::MlpBackward(int64_t l, const ParamPointers<S>& w, const ParamPointers<float>& g,
                             const LayerActivations& act) {
  const int64_t BT = int64_t{B_} * T_, C = config_.width, F = config_.hidden(), FC = config_.fc_width();
  S* dresidual = Act(CudaTensor::kDResidual);  // d(residual3) = d(fcproj's output)
  S* dfch = Act(CudaTensor::kDFch);
  if (config_.mlp == MlpKind::kSwiglu) {
    S* dact = Act(CudaTensor::kDFchAct);
    LinearBackward(l, dact, g.fcprojw, g.fcprojb, dresidual, act.fch_gelu, w.fcprojw, nullptr, F, C,
                   "matmul_backward/fcproj", "fcproj.bwd");
    ScopedOp op(timer_, "swiglu_backward");
    swiglu_backward(dfch, static_cast<const S*>(dact), static_cast<const S*>(act.fch), BT, F);
  } else {
    LinearBackward(l, dfch, g.fcprojw, g.fcprojb, dresidual, act.fch_gelu, w.fcprojw,
                   fuse_gelu_ ? act.fch : nullptr, F, C, "matmul_backward/fcproj", "fcproj.bwd");
    if (!fuse_gelu_) {
      ScopedOp op(timer_, "gelu_backward");
      gelu_backward(dfch, act.fch, dfch, BT * F);
    }
  }
  LinearBackward(l, Act(CudaTensor::kDBtc), g.fcw, g.fcb, dfch, act.ln2, w.fcw, nullptr, C, FC,
                 "matmul_backward/fc", "fc.bwd");
}

template <typename S>
absl::Status CudaGpt<S>::RecomputeLayer(int64_t l, const ParamPointers<S>& w) {
  using R = accounting::Recompute;
  const int64_t BT = int64_t{B_} * T_, F = config_.hidden();
  const LayerActivations act = Activations(l);
  switch (options_.recompute) {
    case R::kBlock:
      // The block's forward again from its kept input (layer l - 1's output, kept at every level).
      // It writes layer l's output again too: the same bits, as the same kernels on the same inputs.
      return ForwardLayer(l, w);
    case R::kAttention: {
      // The attention core again from the kept q, k, v (roped when the config ropes): its output,
      // and the probabilities (kernels) or the softmax statistics (cuDNN).
      ScopedOp op(timer_, "attention_forward");
      return AttentionForward(l, act.atty, cudnn_ ? Act(CudaTensor::kQkvr, l) : nullptr);
    }
    case R::kActivation:
      if (config_.mlp == MlpKind::kSwiglu) {
        ScopedOp op(timer_, "swiglu_forward");
        swiglu_forward(act.fch_gelu, static_cast<const S*>(act.fch), BT, F);
      } else {
        ScopedOp op(timer_, "gelu_forward");
        gelu_forward(act.fch_gelu, static_cast<const S*>(act.fch), BT * F);
      }
      return absl::OkStatus();
    default:
      return absl::OkStatus();
  }
}

template <typename S>
absl::Status CudaGpt<S>::BackwardLayer(int64_t l, const ParamPointers<S>& w, const ParamPointers<float>& g) {
  const int64_t C = config_.width, QKV = config_.qkv_width();
  S* dresidual = Act(CudaTensor::kDResidual);
  S* dbtc = Act(CudaTensor::kDBtc);
  S* dqkv = Act(CudaTensor::kDQkv);
  if (auto st = RecomputeLayer(l, w); !st.ok()) return st;
  const LayerActivations act = Activations(l);
  // dresidual holds d(residual3): it flows unchanged into d(residual2) and d(fcproj).
  MlpBackward(l, w, g, act);
  {
    // dresidual becomes d(residual2).
    ScopedOp op(timer_, NormOp(true));
    NormBackward(dresidual, g.ln2w + l * C, Slice(g.ln2b, l * C), dbtc, act.residual2, w.ln2w + l * C,
                 Ptr<float>(CudaTensor::kLn2Mean, l), Ptr<float>(CudaTensor::kLn2Rstd, l));
  }
  LinearBackward(l, dbtc, g.attprojw, g.attprojb, dresidual, act.atty, w.attprojw, nullptr, C, C,
                 "matmul_backward/attproj", "attproj.bwd");
  {
    ScopedOp op(timer_, "attention_backward");
    if (auto st = AttentionBackward(l, dqkv, dbtc); !st.ok()) return st;
  }
  Rope(dqkv, /*backward=*/true);
  LinearBackward(l, dbtc, g.qkvw, g.qkvb, dqkv, act.ln1, w.qkvw, nullptr, C, QKV, "matmul_backward/qkv",
                 "qkv.bwd");
  {
    // dresidual becomes d(residual) of this layer's input = d(residual3) of the one below.
    ScopedOp op(timer_, NormOp(true));
    NormBackward(dresidual, g.ln1w + l * C, Slice(g.ln1b, l * C), dbtc, act.residual, w.ln1w + l * C,
                 Ptr<float>(CudaTensor::kLn1Mean, l), Ptr<float>(CudaTensor::kLn1Rstd, l));
  }
  return absl::OkStatus();
}

template <typename S>
absl::Status CudaGpt<S>::Backward() {
  if (!have_forward_) {
    return absl::FailedPreconditionError("Backward needs a Forward first (each Forward allows one Backward)");
  }
  have_forward_ = false;
  return BackwardKernels();
}

template <typename S>
absl::Status CudaGpt<S>::BackwardKernels() {
  const int64_t B = B_, T = T_, C = config_.width;
  const ParamPointers<S> w = PointParams(layout_, Weights());
  const ParamPointers<float> g = PointParams(layout_, Ptr<float>(CudaTensor::kGrads));
  BackwardHead(w, g);
  for (int64_t l = config_.layers - 1; l >= 0; --l) {
    if (auto st = BackwardLayer(l, w, g); !st.ok()) return st;
  }
  S* dresidual = Act(CudaTensor::kDResidual);
  {
    ScopedOp op(timer_, "encoder_backward");  // g.wpe: null with RoPE
    encoder_backward(g.wte, g.wpe, dresidual, Ptr<int32_t>(CudaTensor::kInputs), B, T, C);
  }
  return absl::OkStatus();
}

template <typename S>
absl::Status CudaGpt<S>::Update(const AdamWConfig& opt, int step) {
  if (auto st = ValidateAdamWStep(opt, step); !st.ok()) return st;
  UploadAdamWArgs(opt, step);
  UpdateKernels();
  ++uncaptured_updates_;
  return absl::OkStatus();
}

template <typename S>
void CudaGpt<S>::UpdateKernels() {
  ScopedOp op(timer_, "adamw_update");
  Bf16* copy = Ptr<Bf16>(CudaTensor::kParamsBf16);  // null in fp32 modes
  const auto* args = reinterpret_cast<const AdamWStepArgs*>(Ptr<float>(CudaTensor::kAdamWArgs));
  for (const ParamTensorInfo& t : layout_.tensors()) {
    if (t.size == 0) continue;
    adamw_update(Ptr<float>(CudaTensor::kParams) + t.offset, copy == nullptr ? nullptr : copy + t.offset,
                 Ptr<float>(CudaTensor::kGrads) + t.offset, Ptr<float>(CudaTensor::kAdamM) + t.offset,
                 Ptr<float>(CudaTensor::kAdamV) + t.offset, t.size, args, t.weight_decay);
  }
}

template <typename S>
absl::Status CudaGpt<S>::TrainStep(const Batch& batch, const AdamWConfig& opt, int step) {
  if (!options_.cuda_graph || uncaptured_updates_ == 0) return GptModel::TrainStep(batch, opt, step);
  if (auto st = ValidateBatch(config_, B_, T_, batch); !st.ok()) return st;
  if (auto st = ValidateAdamWStep(opt, step); !st.ok()) return st;
  if (graph_ == nullptr) return CaptureCheckedStep(batch, opt, step);
  // Outside the graph: this step's tokens and AdamW arguments, where the graph's kernels read them.
  UploadBatch(batch);
  UploadAdamWArgs(opt, step);
  LaunchGraph(*graph_);
  have_forward_ = false;  // the graph's backward turned the logits into their gradient
  have_loss_ = false;
  return absl::OkStatus();
}

// Records forward, zero-grad, backward and AdamW into graph_ (nothing runs). The op timer is off
// meanwhile: its events would be captured too, and a replay has no op boundaries to time.
template <typename S>
absl::Status CudaGpt<S>::CaptureStep() {
  if (std::string error = BeginGraphCapture(); !error.empty()) return absl::InternalError(error);
  OpTimer* timer = std::exchange(timer_, nullptr);
  absl::Status recorded = ForwardKernels();
  if (recorded.ok()) {
    ZeroGradKernels();
    recorded = BackwardKernels();
  }
  if (recorded.ok()) UpdateKernels();
  timer_ = timer;
  std::string error;
  graph_ = EndGraphCapture(&error);  // ends the capture in every case
  if (!recorded.ok()) {
    graph_.reset();
    return absl::Status(recorded.code(), absl::StrCat("--cuda_graph: capture: ", recorded.message()));
  }
  if (graph_ == nullptr) return absl::InternalError(absl::StrCat("--cuda_graph: ", error));
  return absl::OkStatus();
}

// The capture step with its one-time check (cuda_gpt.h, graph_check.h). Host memory: the
// parameters and both AdamW moments, 12 bytes per parameter, for the duration of this call.
template <typename S>
absl::Status CudaGpt<S>::CaptureCheckedStep(const Batch& batch, const AdamWConfig& opt, int step) {
  const int64_t n = layout_.num_params();
  const CudaTensor saved_ids[] = {CudaTensor::kParams, CudaTensor::kAdamM, CudaTensor::kAdamV};
  std::vector<std::vector<float>> saved(3, std::vector<float>(static_cast<size_t>(n)));
  for (int i = 0; i < 3; ++i) CopyToHost(saved[i].data(), Ptr<float>(saved_ids[i]), n * 4);

  GraphCheck check;
  if (auto st = GptModel::TrainStep(batch, opt, step); !st.ok()) return st;
  check.loss_uncaptured = loss();
  if (auto st = Forward(batch); !st.ok()) return st;
  check.probe_uncaptured = loss();

  for (int i = 0; i < 3; ++i) CopyToDevice(Ptr<float>(saved_ids[i]), saved[i].data(), n * 4);
  RefreshWeightCopy();
  UploadBatch(batch);
  UploadAdamWArgs(opt, step);
  if (auto st = CaptureStep(); !st.ok()) return st;
  LaunchGraph(*graph_);
  have_forward_ = false;
  have_loss_ = false;
  check.loss_graph = loss();
  if (auto st = Forward(batch); !st.ok()) return st;
  check.probe_graph = loss();
  // The step's result is the replay's: its loss, and no logits (the probe's are not the step's).
  loss_ = check.loss_graph;
  have_loss_ = true;
  have_forward_ = false;
  absl::Status agree = CheckGraphAgreement(check);
  if (!agree.ok()) graph_.reset();  // never replayed; a later TrainStep captures and checks again
  return agree;
}

template <typename S>
absl::Status CudaGpt<S>::CopyParamSizedToHost(CudaTensor id, std::vector<float>* out) {
  out->resize(static_cast<size_t>(layout_.num_params()));
  CopyToHost(out->data(), Ptr<float>(id), layout_.num_params() * 4);
  return absl::OkStatus();
}

template <typename S>
absl::Status CudaGpt<S>::CopyParamsFromHost(absl::Span<const float> in) {
  if (static_cast<int64_t>(in.size()) != layout_.num_params()) {
    return absl::InvalidArgumentError(
        absl::StrCat("got ", in.size(), " parameters; this model has ", layout_.num_params()));
  }
  CopyToDevice(Ptr<float>(CudaTensor::kParams), in.data(), layout_.num_params() * 4);
  RefreshWeightCopy();
  return absl::OkStatus();
}

template <typename S>
absl::Status CudaGpt<S>::CopyLogitsToHost(std::vector<float>* out) {
  if (!have_forward_) {
    return absl::FailedPreconditionError(
        "no logits: call Forward first (Backward turns the logits into their gradient)");
  }
  const int64_t n = int64_t{B_} * T_ * config_.padded_vocab;
  std::vector<S> raw(static_cast<size_t>(n));
  CopyToHost(raw.data(), Act(CudaTensor::kLogits), n * static_cast<int64_t>(sizeof(S)));
  out->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) (*out)[i] = ToFloat(raw[i]);
  return absl::OkStatus();
}

template <typename S>
std::string CudaGpt<S>::Describe() const {
  // GPT-2's line as it always was; another family names its switches first.
  std::string family;
  if (!IsGpt2Family(config_)) {
    family = absl::StrCat(", ", rms_ ? "RMSNorm" : "LayerNorm", ", ", rope_ ? "RoPE" : "learned positions");
    if (config_.kv_head_count() != config_.heads) {
      absl::StrAppend(&family, ", grouped-query attention (", config_.kv_head_count(), " K/V heads for ",
                      config_.heads, ")");
    }
  }
  const std::string mlp =
      config_.mlp == MlpKind::kSwiglu
          ? "SwiGLU as a separate kernel"
          : absl::StrCat("GeLU ", fuse_gelu_ ? "fused in the GEMM epilogues" : "as separate kernels");
  return absl::StrCat(
      "cuda ", PrecisionName(options_.precision), " on ", options_.device_name, family, ", ", mlp,
      ", residual adds ", fuse_residual_ ? "fused in the GEMMs" : "as separate kernels",
      config_.bias ? ", bias in the GEMM epilogue, " : ", no biases, ", DescribeAttention(), ", gemm ",
      gemm_->name(),
      options_.cuda_graph ? ", train step as one CUDA graph (captured at the second step)" : "",
      options_.recompute == accounting::Recompute::kNone
          ? ""
          : absl::StrCat(", recompute ", accounting::RecomputeName(options_.recompute), " in the backward"),
      "; memory: ", plan_.Describe());
}

template <typename S>
absl::StatusOr<std::unique_ptr<GptModel>> Create(const GptConfig& config, int B, int T, uint64_t seed,
                                                 const CudaGptOptions& options,
                                                 std::unique_ptr<GemmRunner> gemm, CudaMemoryPlan plan,
                                                 std::unique_ptr<CudnnAttention> cudnn) {
  auto model =
      std::make_unique<CudaGpt<S>>(config, B, T, options, std::move(gemm), std::move(plan), std::move(cudnn));
  if (auto st = model->Init(seed); !st.ok()) return st;
  return std::unique_ptr<GptModel>(std::move(model));
}

// cuDNN's attention for the model's shape when the options ask for it (bf16 only), else null.
absl::StatusOr<std::unique_ptr<CudnnAttention>> MakeModelCudnnAttention(const GptConfig& config, int B, int T,
                                                                        const CudaGptOptions& options) {
  if (!options.cudnn_attention) return std::unique_ptr<CudnnAttention>();
  if (options.precision != CudaPrecision::kBf16) {
    return absl::InvalidArgumentError(
        absl::StrCat("cuDNN attention runs bf16 only; the precision is ", PrecisionName(options.precision)));
  }
  return CudnnAttention::Create(
      AttentionShape{B, T, config.heads, config.head_size(), config.kv_head_count()});
}

}  // namespace

absl::StatusOr<std::unique_ptr<GptModel>> CreateCudaGpt(const GptConfig& config, int B, int T, uint64_t seed,
                                                        const CudaGptOptions& options,
                                                        std::unique_ptr<GemmRunner> gemm) {
  if (gemm == nullptr) return absl::InvalidArgumentError("CreateCudaGpt needs a GemmRunner");
  const bool bf16 = options.precision == CudaPrecision::kBf16;
  if (auto st = ValidateRunShape(config, B, T); !st.ok()) return st;
  absl::StatusOr<std::unique_ptr<CudnnAttention>> cudnn = MakeModelCudnnAttention(config, B, T, options);
  if (!cudnn.ok()) return cudnn.status();
  AttentionMemory attention;
  if (*cudnn != nullptr) attention = AttentionMemory{true, (*cudnn)->workspace_bytes()};
  if (options.recompute == accounting::Recompute::kFull) {
    return absl::InvalidArgumentError(
        "recompute 'full' is accounting's whole extra forward pass; the model recomputes a level: activation, "
        "attention or block");
  }
  absl::StatusOr<CudaMemoryPlan> plan = PlanCudaMemory(config, B, T, ActivationStorage(options.precision),
                                                       gemm->workspace_bytes(), attention, options.recompute);
  if (!plan.ok()) return plan.status();
  int64_t free_bytes = 0, total_bytes = 0;
  const std::string error = DeviceMemoryInfo(&free_bytes, &total_bytes);
  if (!error.empty()) return absl::UnavailableError(error);
  if (auto st = CheckFits(*plan, free_bytes, total_bytes, options.device_name); !st.ok()) {
    return st;
  }
  CudaGptOptions described = options;  // the choice line says what cuDNN's backward stores
  // The GeLU recompute runs the GeLU kernel; the forward's must match it bit for bit (cuda_gpt.h).
  if (options.recompute == accounting::Recompute::kActivation) described.fuse_gelu = false;
  if (*cudnn != nullptr) {
    absl::StrAppend(&described.attention_choice,
                    CudnnBackwardNote((*cudnn)->workspace_bytes(), B, config.heads, T));
  }
  if (bf16)
    return Create<Bf16>(config, B, T, seed, described, std::move(gemm), *std::move(plan), *std::move(cudnn));
  return Create<float>(config, B, T, seed, described, std::move(gemm), *std::move(plan), *std::move(cudnn));
}

std::string DescribeCudaGpt(const GptModel& model) {
  const auto* m = dynamic_cast<const CudaGptBase*>(&model);
  return m == nullptr ? "" : m->Describe();
}

std::string CudaGptAttentionChoice(const GptModel& model) {
  const auto* m = dynamic_cast<const CudaGptBase*>(&model);
  return m == nullptr ? "" : m->AttentionChoice();
}

const CudaMemoryPlan* CudaGptMemoryPlan(const GptModel& model) {
  const auto* m = dynamic_cast<const CudaGptBase*>(&model);
  return m == nullptr ? nullptr : &m->MemoryPlan();
}

}  // namespace cuda
}  // namespace model
