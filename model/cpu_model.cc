// GptModel on the CPU: a thin adapter over CpuGpt<float>.
#include "model/cpu_model.h"

#include <algorithm>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "model/cpu_gpt.h"
#include "model/gpt_memory.h"
#include "model/host_memory.h"
#include "model/param_init.h"

namespace model {
namespace {

class CpuGptModel final : public GptModel {
 public:
  explicit CpuGptModel(std::unique_ptr<CpuGpt<float>> core) : core_(std::move(core)) {}

  std::string_view device() const override { return "cpu"; }
  const GptConfig& config() const override { return core_->config(); }
  int batch_size() const override { return core_->B(); }
  int seq_len() const override { return core_->T(); }
  absl::Status Forward(const Batch& batch) override { return core_->Forward(batch); }
  float loss() override { return static_cast<float>(core_->loss()); }
  void ZeroGrad() override { core_->ZeroGrad(); }
  absl::Status Backward() override { return core_->Backward(); }
  absl::Status Update(const AdamWConfig& opt, int step) override { return core_->Update(opt, step); }
  void Synchronize() override {}
  int64_t num_params() const override { return core_->num_params(); }
  float* params_data() override { return core_->params(); }
  float* grads_data() override { return core_->grads(); }
  void SetOpTimer(OpTimer* timer) override { core_->SetOpTimer(timer); }
  bool SetGradReadyHook(GradReadyHook hook) override {
    core_->SetGradReadyHook(std::move(hook));
    return true;
  }

  int64_t ResidentActivationBytes() const override {
    const CpuGpt<float>& core = *core_;
    return ResidentBytesOf(core.activations(), core.activation_elements() * static_cast<int64_t>(sizeof(float)));
  }

  absl::Status CopyParamsToHost(std::vector<float>* out) override {
    const CpuGpt<float>& core = *core_;  // reading: the bf16 copies stay valid
    out->assign(core.params(), core.params() + core.num_params());
    return absl::OkStatus();
  }
  absl::Status CopyParamsFromHost(absl::Span<const float> in) override {
    if (static_cast<int64_t>(in.size()) != core_->num_params()) {
      return absl::InvalidArgumentError(
          absl::StrCat("got ", in.size(), " parameters; this model has ", core_->num_params()));
    }
    std::copy(in.begin(), in.end(), core_->params());
    return absl::OkStatus();
  }
  absl::Status CopyGradsToHost(std::vector<float>* out) override {
    out->assign(core_->grads(), core_->grads() + core_->num_params());
    return absl::OkStatus();
  }
  absl::Status CopyLogitsToHost(std::vector<float>* out) override {
    const float* logits = core_->logits();
    if (logits == nullptr) {
      return absl::FailedPreconditionError(
          "no logits: call Forward first (Backward turns the logits into their gradient)");
    }
    const int64_t n = static_cast<int64_t>(core_->B()) * core_->T() * config().padded_vocab;
    out->assign(logits, logits + n);
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<CpuGpt<float>> core_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<GptModel>> MakeCpuModel(const GptConfig& config, int B, int T, uint64_t seed,
                                                       bool bf16_gemms, accounting::Recompute recompute) {
  // Refuse up front rather than be killed halfway through zeroing the buffers.
  absl::StatusOr<MemoryEstimate> need = EstimateCpuTrainingMemory(config, B, T, bf16_gemms, recompute);
  if (!need.ok()) return need.status();
  if (absl::Status st = CheckHostMemory(need->total_bytes(),
                                        absl::StrCat(DescribeConfig(config), " at batch=", B, " seq=", T,
                                                     bf16_gemms ? " (bf16 GEMMs)" : "",
                                                     recompute != accounting::Recompute::kNone
                                                         ? absl::StrCat(" (recompute ", accounting::RecomputeName(recompute), ")")
                                                         : ""),
                                        need->Describe());
      !st.ok()) {
    return st;
  }
  absl::StatusOr<std::unique_ptr<CpuGpt<float>>> core = CpuGpt<float>::Create(config, B, T, bf16_gemms, recompute);
  if (!core.ok()) return core.status();
  InitParams(config, (*core)->layout(), seed, (*core)->params());
  return std::unique_ptr<GptModel>(new CpuGptModel(std::move(*core)));
}

}  // namespace model
