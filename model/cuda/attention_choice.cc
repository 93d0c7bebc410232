// DecideAttention and its helpers: pure functions of the request and what the probes found.
#include "model/cuda/attention_choice.h"

#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "model/enum_names.h"

namespace model {
namespace cuda {
namespace {

constexpr EnumName<AttentionImpl> kImpls[] = {
    {AttentionImpl::kAuto, "auto"},
    {AttentionImpl::kCudnn, "cudnn"},
    {AttentionImpl::kKernels, "kernels"},
};

}  // namespace

const char* AttentionImplName(AttentionImpl impl) { return NameOf(kImpls, impl); }

absl::StatusOr<AttentionImpl> ParseAttentionImpl(absl::string_view name, absl::string_view flag) {
  // (This Abseil's string_view is its own type, not std::string_view.)
  if (std::optional<AttentionImpl> impl = ValueOf(kImpls, std::string_view(name.data(), name.size()))) {
    return *impl;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "--", flag, ": '", name,
      "' is not auto (cuDNN flash attention when it passes a start-up check, else the kernels), cudnn or "
      "kernels"));
}

std::string CudnnVersionName(int64_t version) {
  return absl::StrCat(version / 10000, ".", (version / 100) % 100, ".", version % 100);
}

std::string CudnnCaptureHazard(int64_t cudnn_version, int64_t T) {
  if (T % 128 == 0 || cudnn_version > kLastCudnnWithPaddingWorkaround) return "";
  return absl::StrCat("cuDNN ", CudnnVersionName(cudnn_version), " (9.15.0 or older) at T=", T,
                      " (not a multiple of 128) makes cudnn-frontend copy from pageable host memory "
                      "at each execute, which a CUDA graph capture does not allow");
}

absl::StatusOr<AttentionDecision> DecideAttention(AttentionImpl requested, CudaPrecision precision,
                                                  const CudnnStatus& cudnn,
                                                  const std::function<absl::Status()>& self_check,
                                                  const AttentionUse& use) {
  const bool automatic = requested == AttentionImpl::kAuto;
  const auto kernels = [](std::string why) {
    return AttentionDecision{false, absl::StrCat("attention_impl: kernels (", why, ")")};
  };
  if (requested == AttentionImpl::kKernels) return kernels("--attention_impl=kernels");
  if (precision != CudaPrecision::kBf16) {
    if (automatic) {
      return kernels(absl::StrCat("auto: cuDNN attention is bf16 only; dtype is ", PrecisionName(precision)));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("--attention_impl=cudnn: cuDNN attention runs bf16 only; dtype is ",
                     PrecisionName(precision), " (use --dtype=bf16, or --attention_impl=kernels or auto)"));
  }
  std::string unusable;
  if (!cudnn.loaded) {
    unusable = absl::StrCat("no usable cuDNN: ", cudnn.reason);
  } else if (cudnn.version < kMinCudnnVersion) {
    unusable = absl::StrCat("cuDNN ", CudnnVersionName(cudnn.version), " is older than ",
                            CudnnVersionName(kMinCudnnVersion));
  }
  if (!unusable.empty()) {
    if (automatic) return kernels(absl::StrCat("auto: ", unusable));
    return absl::UnavailableError(
        absl::StrCat("--attention_impl=cudnn: ", unusable, " (use --attention_impl=kernels or auto)"));
  }
  if (const std::string hazard = CudnnCaptureHazard(cudnn.version, use.seq); use.cuda_graph && !hazard.empty()) {
    if (automatic) return kernels(absl::StrCat("auto: --cuda_graph: ", hazard));
    return absl::InvalidArgumentError(absl::StrCat(
        "--attention_impl=cudnn with --cuda_graph: ", hazard,
        " (use a --seq that is a multiple of 128, cuDNN 9.16.0 or newer, --attention_impl=kernels, or no "
        "--cuda_graph)"));
  }
  const std::string name = absl::StrCat("cuDNN ", CudnnVersionName(cudnn.version));
  if (!automatic)
    return AttentionDecision{true,
                             absl::StrCat("attention_impl: cudnn (--attention_impl=cudnn, ", name, ")")};
  const absl::Status check = self_check ? self_check() : absl::InternalError("no self-check given");
  if (!check.ok()) {
    return kernels(
        absl::StrCat("auto: ", name, " failed the start-up check against the kernels: ", check.message()));
  }
  return AttentionDecision{
      true, absl::StrCat("attention_impl: cudnn (auto: ", name,
                         " flash attention matched the kernels' output and dq, dk, dv at start-up)")};
}

std::string CudnnBackwardNote(int64_t workspace_bytes, int64_t B, int64_t NH, int64_t T) {
  const double matrix = 4.0 * static_cast<double>(B) * NH * T * T;
  return absl::StrFormat(
      "; backward: cuDNN's deterministic algorithm, workspace %.1f MiB (%.2fx one (B, NH, T, T) fp32 matrix, "
      "%.1f MiB)",
      workspace_bytes / 1048576.0, matrix > 0 ? workspace_bytes / matrix : 0.0, matrix / 1048576.0);
}

std::string AttentionImplRecord(absl::string_view choice_line) {
  if (choice_line.empty()) return "cpu";
  for (const char* impl : {"cudnn", "kernels"}) {
    if (absl::StartsWith(choice_line, absl::StrCat("attention_impl: ", impl, " ("))) return impl;
  }
  return "unknown";
}

}  // namespace cuda
}  // namespace model
