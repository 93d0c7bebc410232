// CpuBf16Note (cpu_bf16_note.h).
#include "macro/cpu_bf16_note.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "measure/bf16_peak.h"
#include "model/onednn_gemm.h"

namespace macro {

std::string CpuBf16Note(const std::string& tool, accounting::Dtype dtype, double fp32_peak_flops) {
  const std::string units = micro::DescribeCpuBf16Units();
  if (dtype == accounting::Dtype::kBf16) {
    absl::StatusOr<std::string> impl = model::OneDnnBf16Implementation();
    if (!impl.ok()) return absl::StrCat(tool, ": bf16: ", impl.status().message());
    std::string line = absl::StrCat(tool, ": bf16 mixed precision on this CPU's bf16 units (", units,
                                    "): the Linear layers' GEMMs on oneDNN ", *impl,
                                    " with fp32 accumulation; master weights, AdamW, LayerNorm, attention, "
                                    "softmax and cross-entropy in fp32; MFU against the bf16 peak");
    if (model::IsEmulatedBf16(*impl)) {
      absl::StrAppend(&line, "\n", tool, ": WARNING: oneDNN runs bf16 as ", *impl,
                      ", without bf16 units (emulated; is ONEDNN_MAX_CPU_ISA capped?): right results, "
                      "slower than fp32");
    }
    return line;
  }
  if (units == "none") return "";
  absl::StatusOr<micro::CpuBf16Peak> p = micro::MeasureCpuBf16Peak(0.005, 3);
  if (!p.ok()) {
    return absl::StrCat(tool, ": this CPU has ", units, ", but its bf16 loop cannot run: ", p.status().message());
  }
  std::string line = absl::StrFormat(
      "%s: this CPU has %s: bf16 peak %.1f GFLOP/s measured now (%s)%s; --dtype=bf16 runs the Linear "
      "layers in bf16 (fp32 stays the default)",
      tool, units, p->best.flops_per_s / 1e9, p->Describe(3),
      fp32_peak_flops > 0 ? absl::StrFormat(", %.1fx this run's fp32 peak", p->best.flops_per_s / fp32_peak_flops)
                          : "");
  for (const std::string& note : p->notes) absl::StrAppend(&line, " (", note, ")");
  return line;
}

}  // namespace macro
