// Checks shared by every GptModel implementation, and the default TrainStep.
#include "model/gpt_model.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace model {

absl::Status ValidateAdamW(const AdamWConfig& o) {
  if (!(o.lr >= 0) || !std::isfinite(o.lr)) {
    return absl::InvalidArgumentError(absl::StrCat("lr=", o.lr, " is invalid: must be >= 0"));
  }
  if (!(o.beta1 >= 0 && o.beta1 < 1)) {
    return absl::InvalidArgumentError(absl::StrCat("beta1=", o.beta1, " is invalid: must be in [0, 1)"));
  }
  if (!(o.beta2 >= 0 && o.beta2 < 1)) {
    return absl::InvalidArgumentError(absl::StrCat("beta2=", o.beta2, " is invalid: must be in [0, 1)"));
  }
  if (!(o.eps > 0)) {
    return absl::InvalidArgumentError(absl::StrCat("eps=", o.eps, " is invalid: must be > 0"));
  }
  if (!(o.weight_decay >= 0) || !std::isfinite(o.weight_decay)) {
    return absl::InvalidArgumentError(
        absl::StrCat("weight_decay=", o.weight_decay, " is invalid: must be >= 0"));
  }
  return absl::OkStatus();
}

absl::Status ValidateAdamWStep(const AdamWConfig& opt, int step) {
  if (auto st = ValidateAdamW(opt); !st.ok()) return st;
  if (step < 1) {
    return absl::InvalidArgumentError(absl::StrCat("step=", step, " is invalid: must be >= 1"));
  }
  return absl::OkStatus();
}

absl::Status ValidateBatch(const GptConfig& config, int B, int T, const Batch& batch) {
  if (batch.B != B || batch.T != T) {
    return absl::InvalidArgumentError(absl::StrCat("batch is (B=", batch.B, ", T=", batch.T,
                                                   "); this model was planned for (B=", B, ", T=", T, ")"));
  }
  const size_t n = static_cast<size_t>(B) * T;
  if (batch.inputs.size() != n || batch.targets.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat("batch holds ", batch.inputs.size(), " inputs and ",
                                                   batch.targets.size(), " targets; B*T = ", n,
                                                   " of each are needed"));
  }
  for (size_t i = 0; i < n; ++i) {
    for (const auto* v : {&batch.inputs, &batch.targets}) {
      const int32_t tok = (*v)[i];
      if (tok < 0 || tok >= config.vocab) {
        return absl::InvalidArgumentError(
            absl::StrCat(v == &batch.inputs ? "input" : "target", " token ", tok, " at (b=", i / T,
                         ", t=", i % T, ") is out of range: must be in [0, ", config.vocab, ")"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status GptModel::TrainStep(const Batch& batch, const AdamWConfig& opt, int step) {
  if (auto st = Forward(batch); !st.ok()) return st;
  ZeroGrad();
  if (auto st = Backward(); !st.ok()) return st;
  return Update(opt, step);
}

}  // namespace model
